// The house plan's import rules (docs/decisions/0013-layout.md), checked on the source: every relative import of
// every file under src/ (tests and stand-ins included) is resolved to the folder it lands in. A rule names the
// folders a file may not reach; the failure lists each offending file and import.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { importedSpecifiers, ROOT, sourceFiles } from './support/source-scan.ts';

interface Edge {
  from: string;
  to: string;
}

/** Every relative import between files of the repository, resolved to a root-relative path. */
const EDGES: Edge[] = sourceFiles('src').flatMap((from) =>
  importedSpecifiers(readFileSync(join(ROOT, from), 'utf8'))
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => ({ from, to: join(dirname(from), specifier).split('\\').join('/') })),
);

/** Whether `path` lies in `folder` (a root-relative folder such as `src/search`). */
function isIn(path: string, folder: string): boolean {
  return path.startsWith(`${folder}/`);
}

/** The imports from files matching `from` into files matching `to`, one line each. */
function violations(from: (path: string) => boolean, to: (path: string) => boolean): string[] {
  return EDGES.filter((edge) => from(edge.from) && to(edge.to)).map((edge) => `${edge.from} → ${edge.to}`);
}

/** The core: everything in src/ except the surfaces (CLI, MCP, gateway, adapters) and the test kit. */
function isCore(path: string): boolean {
  return isIn(path, 'src') && !isIn(path, 'src/surfaces') && !isIn(path, 'src/testing');
}

test('the scan sees the imports it checks', () => {
  assert.ok(EDGES.length > 500, `only ${EDGES.length} relative imports found under src/`);
  assert.ok(EDGES.some((edge) => isIn(edge.from, 'src/search') && isIn(edge.to, 'src/services')));
  assert.ok(EDGES.some((edge) => isIn(edge.from, 'src/fetch') && isIn(edge.to, 'src/services')));
});

test('src/fetch imports nothing from src/search, nor src/search from src/fetch', () => {
  const found = [
    ...violations(
      (path) => isIn(path, 'src/fetch'),
      (path) => isIn(path, 'src/search'),
    ),
    ...violations(
      (path) => isIn(path, 'src/search'),
      (path) => isIn(path, 'src/fetch'),
    ),
  ];
  assert.deepEqual(found, []);
});

test('src/services, shared by search and fetch, imports neither of them, nor any surface', () => {
  const found = violations(
    (path) => isIn(path, 'src/services'),
    (path) => isIn(path, 'src/search') || isIn(path, 'src/fetch') || isIn(path, 'src/surfaces'),
  );
  assert.deepEqual(found, []);
});

test('src/tools imports nothing from src/policy: policy wraps tools, never the reverse', () => {
  const found = violations(
    (path) => isIn(path, 'src/tools'),
    (path) => isIn(path, 'src/policy'),
  );
  assert.deepEqual(found, []);
});

test('no core folder imports a surface', () => {
  const found = violations(isCore, (path) => isIn(path, 'src/surfaces'));
  assert.deepEqual(found, []);
});

test('the shipped rooms below the tools (net, content, config, services, store, search, fetch) import none above them', () => {
  // Their tests may assemble the whole (createPeriscope, a tool) to check a part in place; the code may not.
  const below = [
    'src/net',
    'src/content',
    'src/config',
    'src/services',
    'src/store',
    'src/search',
    'src/fetch',
  ];
  const above = ['src/tools', 'src/policy', 'src/agent', 'src/keys', 'src/surfaces'];
  const found = violations(
    (path) => below.some((folder) => isIn(path, folder)) && !path.endsWith('.test.ts'),
    (path) => above.some((folder) => isIn(path, folder)) || path === 'src/index.ts',
  );
  assert.deepEqual(found, []);
});

test('config, which every room reads, imports no store', () => {
  assert.deepEqual(
    violations(
      (path) => isIn(path, 'src/config'),
      (path) => isIn(path, 'src/store'),
    ),
    [],
  );
});
