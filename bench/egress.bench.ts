// What the seen-URL rule and secret scanning add to a call: the scan of one query or URL (the ordinary corpus of
// src/egress/__fixtures__/, with 0 and 40 secrets held), and the seen set's writes after a page of links and its
// one read before a fetch, on the memory and SQLite stores.
// Run: npx node bench/egress.bench.ts
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecretScanner } from '../src/egress/secret-scanner.ts';
import { seenUrlsOf } from '../src/egress/seen-urls.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { openStore } from '../src/store/open-store.ts';
import type { Store } from '../src/store/store.ts';

const LINES = readFileSync(
  new URL('../src/egress/__fixtures__/ordinary-outbound.txt', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'));

function microsPerScan(secrets: number, entropy: boolean): number {
  const held = Array.from(
    { length: secrets },
    (_, index) => `held-secret-value-${index}-${'x'.repeat(index % 20)}`,
  );
  const scanner = createSecretScanner({ secrets: held, entropy });
  for (const line of LINES) scanner.scan(line); // warm up
  const rounds = 20;
  const started = performance.now();
  for (let round = 0; round < rounds; round++) for (const line of LINES) scanner.scan(line);
  return ((performance.now() - started) * 1000) / (rounds * LINES.length);
}

console.log(`Secret scan, µs per query or URL (mean over ${LINES.length} corpus lines × 20)`);
for (const secrets of [0, 40]) {
  for (const entropy of [false, true]) {
    console.log(
      `  ${String(secrets).padStart(2)} secrets held, entropy ${entropy ? 'on ' : 'off'}: ${microsPerScan(secrets, entropy).toFixed(1)}`,
    );
  }
}

async function seenSet(label: string, store: Store) {
  const links = Array.from({ length: 300 }, (_, index) => `https://example.com/docs/page-${index}?ref=nav`);
  const seen = seenUrlsOf(store, 'bench', `session-${label}`);
  let started = performance.now();
  await seen.add(links);
  const firstMs = performance.now() - started;
  started = performance.now();
  await seen.add(links);
  const againMs = performance.now() - started;
  const lookups = 1000;
  started = performance.now();
  for (let index = 0; index < lookups; index++) await seen.has(links[index % links.length] as string);
  const lookupMicros = ((performance.now() - started) * 1000) / lookups;
  console.log(
    `  ${label.padEnd(7)} record 300 new links ${firstMs.toFixed(1)} ms, the same again ${againMs.toFixed(1)} ms, one lookup ${lookupMicros.toFixed(0)} µs`,
  );
}

console.log('Seen set (egress.seenUrlsOnly)');
const memory = createMemoryStore();
await seenSet('memory', memory);
await memory.close();
const folder = mkdtempSync(join(tmpdir(), 'periscope-egress-bench-'));
const sqlite = await openStore(`sqlite://${join(folder, 'state.db')}`);
await seenSet('sqlite', sqlite);
await sqlite.close();
rmSync(folder, { recursive: true, force: true });
