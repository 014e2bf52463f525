// Every package the code imports is declared in package.json: the shipped code (src/, bin/, not tests) only from
// `dependencies` or `peerDependencies`, which an installed package gets; tests, benches and scripts from any section.
// A package that merely arrives through another one's dependencies (a transitive install) is not declared.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

/** Every `.ts`/`.js` file under `folder` (relative to the root), skipping node_modules and fixtures. */
function sourceFiles(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })) {
    const path = relative(ROOT, join(entry.parentPath, entry.name));
    if (!entry.isFile() || /(^|\/)(node_modules|__fixtures__)\//.test(path)) continue;
    if (/\.(ts|js|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files.sort();
}

/**
 * The module specifiers a file imports: static `import … from`, `export … from`, side-effect `import '…'` and
 * dynamic `import('…')` with a literal. Comments are removed first so that prose mentioning a package is no import.
 */
function importedSpecifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const patterns = [
    /^\s*(?:import|export)\s+(?:type\s+)?[^'"`;]*?\sfrom\s*['"]([^'"\n]+)['"]/gm,
    /^\s*import\s*['"]([^'"\n]+)['"]/gm,
    /\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*[,)]/g,
  ];
  const specifiers = new Set<string>();
  for (const pattern of patterns)
    for (const match of code.matchAll(pattern)) specifiers.add(match[1] as string);
  return [...specifiers];
}

const BUILTINS = new Set(builtinModules);

/** The npm package a specifier names (`@scope/pkg/sub` → `@scope/pkg`, `pkg/sub` → `pkg`); undefined for others. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || /^[./#]/.test(specifier) || /^[a-z]+:/i.test(specifier))
    return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  if (name === undefined || BUILTINS.has(name)) return undefined;
  return name;
}

/** `file: package` for every import of a package none of `sections` declares (the package itself counts). */
function undeclared(
  files: readonly string[],
  sections: ReadonlyArray<Record<string, string> | undefined>,
): string[] {
  const declared = new Set([manifest.name, ...sections.flatMap((section) => Object.keys(section ?? {}))]);
  const missing: string[] = [];
  for (const file of files) {
    for (const specifier of importedSpecifiers(readFileSync(join(ROOT, file), 'utf8'))) {
      const name = packageOf(specifier);
      if (name !== undefined && !declared.has(name)) missing.push(`${file}: ${name} (import '${specifier}')`);
    }
  }
  return missing;
}

const isTestCode = (file: string) => /\.test\.ts$/.test(file) || file.startsWith('src/testing/');

test('the specifier scan finds every form of import and names the package, scoped and with subpaths', () => {
  const text = [
    "import { a } from 'alpha';",
    "import type { B } from '@scope/beta/sub/path.js';",
    'import * as gamma from "gamma/sub";',
    "export { d } from 'delta';",
    "import 'side-effect';",
    "const lazy = await import('lazy-one');",
    "const typed = await import('@scope/lazy', { with: { type: 'json' } });",
    "import {\n  many,\n  names,\n} from 'multi-line';",
    "import { readFileSync } from 'node:fs';",
    "import path from 'path';",
    "import local from './local.ts';",
    "import internal from '#internal';",
    "// import { commented } from 'commented-out';",
    "/* import { block } from 'block-comment'; */",
    "const url = 'https://example.com/'; // a string with // in it",
  ].join('\n');
  const specifiers = importedSpecifiers(text);
  assert.deepEqual(specifiers.map(packageOf).filter(Boolean).sort(), [
    '@scope/beta',
    '@scope/lazy',
    'alpha',
    'delta',
    'gamma',
    'lazy-one',
    'multi-line',
    'side-effect',
  ]);
});

test('the shipped code (src/ without tests, bin/) imports only packages in dependencies or peerDependencies', () => {
  const files = [...sourceFiles('src'), ...sourceFiles('bin')].filter((file) => !isTestCode(file));
  assert.ok(files.length > 50, `found ${files.length} source files`);
  assert.deepEqual(undeclared(files, [manifest.dependencies, manifest.peerDependencies]), []);
});

test('src/testing/provider-testing.ts, exported as periscope/testing, imports only shipped dependencies', () => {
  const files = ['src/testing/provider-testing.ts'];
  assert.deepEqual(undeclared(files, [manifest.dependencies, manifest.peerDependencies]), []);
});

test('tests, test helpers, benches and scripts import only packages package.json declares', () => {
  const files = [
    ...sourceFiles('src').filter(isTestCode),
    // This file's own examples of imports are text, not imports.
    ...sourceFiles('test').filter((file) => file !== 'test/declared-dependencies.test.ts'),
    ...sourceFiles('bench'),
    ...sourceFiles('scripts'),
  ];
  assert.ok(files.length > 50, `found ${files.length} test, bench and script files`);
  const sections = [manifest.dependencies, manifest.devDependencies, manifest.peerDependencies];
  assert.deepEqual(undeclared(files, sections), []);
});
