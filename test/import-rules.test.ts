// The house plan's import rules (docs/decisions/0013-layout.md), checked on the source: every relative import of
// every file under src/ (tests and stand-ins included) is resolved to the folder it lands in. A rule names the
// folders a file may not reach; the failure lists each offending file and import.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every `.ts` file under src/ (relative to the root, `/`-separated), fixtures skipped. */
function sourceFiles(): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(ROOT, 'src'), { withFileTypes: true, recursive: true })) {
    const path = relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/');
    if (!entry.isFile() || /(^|\/)__fixtures__\//.test(path)) continue;
    if (entry.name.endsWith('.ts')) files.push(path);
  }
  return files.sort();
}

/**
 * The module specifiers a file imports: static `import … from`, `export … from`, side-effect `import '…'` and
 * dynamic `import('…')` with a literal. Comments are removed first so that prose mentioning a path is no import.
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

interface Edge {
  from: string;
  to: string;
}

/** Every relative import between files of the repository, resolved to a root-relative path. */
const EDGES: Edge[] = sourceFiles().flatMap((from) =>
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
