// What the source-reading tests (import rules, declared dependencies, the network policy's one place, the typed
// reasons) share: the repository's files and the imports a file makes, read as text.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Whether a file is a test (`*.test.ts`, `*.test-d.ts`). */
export function isTestFile(path: string): boolean {
  return /\.test(-d)?\.ts$/.test(path);
}

/**
 * Every code file (`.ts`, `.js`, `.mjs`, `.cjs`; no `.d.ts`) under `folder`, root-relative with `/`, sorted;
 * `node_modules` and `__fixtures__` skipped. `tests: false` leaves the test files out.
 */
export function sourceFiles(folder: string, options: { tests?: boolean } = {}): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })) {
    const path = relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/');
    if (!entry.isFile() || /(^|\/)(node_modules|__fixtures__)\//.test(path)) continue;
    if (!/\.(ts|js|mjs|cjs)$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue;
    if (options.tests === false && isTestFile(path)) continue;
    files.push(path);
  }
  return files.sort();
}

/** The code without its comments, so that prose naming a path or a call is neither. */
export function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/**
 * The module specifiers a file imports: static `import … from`, `export … from`, side-effect `import '…'` and
 * dynamic `import('…')` with a literal, comments removed first.
 */
export function importedSpecifiers(text: string): string[] {
  const code = withoutComments(text);
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

/** The shipped TypeScript under src/ (tests left out), each file with its text. */
export function shippedSources(): Array<{ path: string; text: string }> {
  return sourceFiles('src', { tests: false })
    .filter((path) => path.endsWith('.ts'))
    .map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
}
