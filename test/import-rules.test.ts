// The house plan's import rules (docs/decisions/0013-layout.md), checked on the source: every relative import of
// every file under src/ (tests and stand-ins included) is resolved to the file and the room it lands in. A rule
// names what a file may not reach; the failure lists each offending file and import.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { importedSpecifiers, isTestFile, ROOT, sourceFiles } from './support/source-scan.ts';

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

/**
 * The floors of the house, bottom first (docs/decisions/0013-layout.md). A room is a folder of src/ or a file
 * directly in it. Shipped code imports only its own room and rooms on lower floors: never a room above, nor another
 * room on its own floor (rooms side by side stay apart, as search and fetch do). A new room gets a floor here.
 */
const FLOORS: readonly (readonly string[])[] = [
  // Words every room may use: the typed reasons, an input mistake, stage timing, the one turn queue, a calendar day.
  [
    'src/error-reasons.ts',
    'src/input-issue.ts',
    'src/stage-timing.ts',
    'src/concurrency',
    'src/calendar-day.ts',
  ],
  ['src/errors.ts'],
  // The guarded client (with what a URL or a host from outside reads as); the words of one tool call.
  ['src/net', 'src/tool-call.ts'],
  ['src/config', 'src/call-context.ts'],
  ['src/content', 'src/services', 'src/store'],
  ['src/egress'],
  ['src/search', 'src/fetch', 'src/citations'],
  ['src/tools'],
  ['src/policy'],
  ['src/keys', 'src/agent'],
  ['src/index.ts'],
  ['src/surfaces'],
];

/**
 * Shipped imports allowed to break the floor rule, each as `from → to` (root-relative files) with its reason in a
 * comment. None: a type a lower room needs moves down to it instead.
 */
const UPWARD_EXCEPTIONS: readonly string[] = [];

/** The test kit (stand-ins, shared suites, `periscope/testing`): on no floor; it may import any room. */
const TEST_KIT = 'src/testing';

/** Whether `path` lies in `folder` (a root-relative folder such as `src/search`). */
function isIn(path: string, folder: string): boolean {
  return path.startsWith(`${folder}/`);
}

/** The room of a file under src/: `src/<folder>`, or the file itself when it lies directly in src/. */
function roomOf(path: string): string | undefined {
  const match = /^src\/([^/]+)(\/)?/.exec(path);
  if (!match) return undefined;
  return match[2] ? `src/${match[1]}` : path;
}

function floorOf(room: string): number | undefined {
  const floor = FLOORS.findIndex((rooms) => rooms.includes(room));
  return floor === -1 ? undefined : floor;
}

/** Shipped code: not a test, not the test kit. */
function isShipped(path: string): boolean {
  return !isTestFile(path) && !isIn(path, TEST_KIT);
}

/** The imports from files matching `from` into files matching `to`, one line each. */
function violations(from: (path: string) => boolean, to: (path: string) => boolean): string[] {
  return EDGES.filter((edge) => from(edge.from) && to(edge.to)).map((edge) => `${edge.from} → ${edge.to}`);
}

/** The core: everything in src/ except the surfaces (CLI, MCP, gateway, adapters) and the test kit. */
function isCore(path: string): boolean {
  return isIn(path, 'src') && !isIn(path, 'src/surfaces') && !isIn(path, TEST_KIT);
}

/**
 * The circles of a graph: its strongly connected components of more than one node, or of one that imports itself
 * (Tarjan), each as the sorted edges that run inside it.
 */
function circles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    components.push(component);
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return components
    .map((component) => new Set(component))
    .map((members) =>
      edges
        .filter((edge) => members.has(edge.from) && members.has(edge.to))
        .map((edge) => `${edge.from} → ${edge.to}`),
    )
    .filter((inside) => inside.length > 0)
    .map((inside) => [...new Set(inside)].sort());
}

test('the scan sees the imports it checks', () => {
  assert.ok(EDGES.length > 500, `only ${EDGES.length} relative imports found under src/`);
  assert.ok(EDGES.some((edge) => isIn(edge.from, 'src/search') && isIn(edge.to, 'src/services')));
  assert.ok(EDGES.some((edge) => isIn(edge.from, 'src/fetch') && isIn(edge.to, 'src/services')));
});

test('the circle finder finds a circle, and the one that imports itself', () => {
  const found = circles([
    { from: 'a', to: 'b' },
    { from: 'b', to: 'c' },
    { from: 'c', to: 'a' },
    { from: 'c', to: 'd' },
    { from: 'e', to: 'e' },
  ]);
  assert.deepEqual(found, [['a → b', 'b → c', 'c → a'], ['e → e']]);
});

test('no circle of imports among the files of src/ (tests and stand-ins included)', () => {
  const files = new Set(sourceFiles('src'));
  assert.deepEqual(
    circles(EDGES.filter((edge) => files.has(edge.to))),
    [],
    'each list is one circle: move what both sides need into a module below them',
  );
});

test('no circle of imports between the rooms of src/ in shipped code', () => {
  const between = EDGES.filter((edge) => isShipped(edge.from) && roomOf(edge.to) !== undefined)
    .map((edge) => ({ from: roomOf(edge.from) as string, to: roomOf(edge.to) as string, edge }))
    .filter(({ from, to }) => from !== to);
  // Each circle as its arrows between rooms, each arrow with the file imports that make it.
  const found = circles(between).map((arrows) =>
    arrows.map((arrow) => {
      const imports = between
        .filter(({ from, to }) => `${from} → ${to}` === arrow)
        .map(({ edge }) => `${edge.from} → ${edge.to}`);
      return `${arrow}: ${[...new Set(imports)].sort().join(', ')}`;
    }),
  );
  assert.deepEqual(found, []);
});

test('every room of src/ has a floor', () => {
  const rooms = new Set(sourceFiles('src', { tests: false }).map((path) => roomOf(path) as string));
  rooms.delete(TEST_KIT);
  const without = [...rooms].filter((room) => floorOf(room) === undefined);
  assert.deepEqual(
    without,
    [],
    'give each new room its floor in FLOORS and in docs/decisions/0013-layout.md',
  );
  const gone = FLOORS.flat().filter((room) => !rooms.has(room));
  assert.deepEqual(gone, [], 'a room in FLOORS that src/ no longer has');
});

test('shipped code imports only its own room and rooms on lower floors', () => {
  // Tests may assemble the whole (createPeriscope, a tool) to check a part in place; the code may not.
  const found = EDGES.filter((edge) => isShipped(edge.from) && roomOf(edge.to) !== undefined)
    .filter((edge) => {
      const from = roomOf(edge.from) as string;
      const to = roomOf(edge.to) as string;
      if (from === to) return false;
      const below = floorOf(from);
      const above = floorOf(to);
      // A room on no floor (the test kit, a room not placed yet) is never below anything.
      return below === undefined || above === undefined || above >= below;
    })
    .map((edge) => `${edge.from} → ${edge.to}`)
    .filter((line) => !UPWARD_EXCEPTIONS.includes(line));
  assert.deepEqual(
    found,
    [],
    'move what the lower room needs down to it (or write the exception, with its reason, in UPWARD_EXCEPTIONS)',
  );
});

test('every upward exception is still needed', () => {
  const lines = new Set(EDGES.map((edge) => `${edge.from} → ${edge.to}`));
  assert.deepEqual(
    UPWARD_EXCEPTIONS.filter((line) => !lines.has(line)),
    [],
  );
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

test('config, which every room reads, imports no store', () => {
  assert.deepEqual(
    violations(
      (path) => isIn(path, 'src/config'),
      (path) => isIn(path, 'src/store'),
    ),
    [],
  );
});
