#!/usr/bin/env node
// Entry point. In a source checkout it runs src/ directly (Node strips the types); an installed package runs dist/.
// Plain JavaScript without top-level await, so that an older Node parses it and reaches the version check, which
// runs before any TypeScript or node:sqlite is loaded: one line and exit 2 instead of a stack.
import { existsSync, readFileSync } from 'node:fs';
import module from 'node:module';
import { checkNodeVersion } from './check-node-version.js';

const args = process.argv.slice(2);
const source = new URL('../src/surfaces/cli/main.ts', import.meta.url);
const fromSource = existsSync(source);
const problem = checkNodeVersion({
  version: process.versions.node,
  fromSource,
  typeStripping: process.features?.typescript,
});
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 2;
} else if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${manifest.version}\n`);
} else {
  // Node keeps compiled (and type-stripped) modules on disk between runs: a warm start skips most of the work.
  module.enableCompileCache?.();
  const entry = fromSource ? source : new URL('../dist/surfaces/cli/main.js', import.meta.url);
  import(entry.href)
    .then(({ main }) => main(args))
    .then((code) => {
      process.exitCode = code;
    });
}
