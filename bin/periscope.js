#!/usr/bin/env node
// Entry point. In a source checkout it runs src/ directly (Node 24 strips the types); an installed package runs dist/.
import { existsSync, readFileSync } from 'node:fs';
import module from 'node:module';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${manifest.version}\n`);
} else {
  // Node keeps compiled (and type-stripped) modules on disk between runs: a warm start skips most of the work.
  module.enableCompileCache?.();
  const source = new URL('../src/surfaces/cli/main.ts', import.meta.url);
  const entry = existsSync(source) ? source : new URL('../dist/surfaces/cli/main.js', import.meta.url);
  const { main } = await import(entry.href);
  process.exitCode = await main(args);
}
