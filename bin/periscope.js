#!/usr/bin/env node
// Entry point. In a source checkout it runs src/ directly (Node 24 strips the types); an installed package runs dist/.
import { existsSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${manifest.version}\n`);
} else {
  const source = new URL('../src/surfaces/cli/main.ts', import.meta.url);
  const entry = existsSync(source) ? source : new URL('../dist/surfaces/cli/main.js', import.meta.url);
  const { main } = await import(entry.href);
  process.exitCode = await main(args);
}
