// Every package the code imports is declared in package.json: the shipped code (src/, bin/, not tests) only from
// `dependencies` or `peerDependencies`, which an installed package gets; tests, benches and scripts from any section.
// A package that merely arrives through another one's dependencies (a transitive install) is not declared.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { importedSpecifiers, ROOT, sourceFiles } from './support/source-scan.ts';

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

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
