// The direction of the rooms: tools own what a tool is (its cache interface, its display line) and never import
// the policy that wraps them; the core (everything under src/ but the surfaces) never imports a surface.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every `.ts` file under `folder` (relative to the root), tests included. */
function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

/** The root-relative files a file imports by relative path (static, type-only, re-exports and dynamic). */
function localImports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s[^'"`;]*?\sfrom\s*['"](\.[^'"\n]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"](\.[^'"\n]+)['"]\s*\)/g),
  ].map((match) => match[1] as string);
  return specifiers.map((specifier) => relative(ROOT, resolve(dirname(join(ROOT, file)), specifier)));
}

function violations(files: readonly string[], forbidden: string): string[] {
  return files.flatMap((file) =>
    localImports(file)
      .filter((target) => target.startsWith(forbidden))
      .map((target) => `${file} → ${target}`),
  );
}

test('no file under src/tools imports src/policy', () => {
  assert.deepEqual(violations(sourceFiles('src/tools'), 'src/policy/'), []);
});

test('no core file (src/ outside src/surfaces) imports a surface', () => {
  const core = sourceFiles('src').filter((file) => !file.startsWith('src/surfaces/'));
  assert.ok(core.length > 50, 'the scan sees the core');
  assert.deepEqual(violations(core, 'src/surfaces/'), []);
});
