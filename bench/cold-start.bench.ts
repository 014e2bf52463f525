// CLI cold start: `periscope --version` and `periscope extract` of one small page, median of several runs.
// Run: npx node bench/cold-start.bench.ts [runs]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 15);
const bin = new URL('../bin/periscope.js', import.meta.url).pathname;
const page = join(mkdtempSync(join(tmpdir(), 'periscope-bench-')), 'page.html');
writeFileSync(
  page,
  `<html><head><title>Small</title></head><body><article><h1>Small</h1>${'<p>A short paragraph of text.</p>'.repeat(20)}</article></body></html>`,
);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function time(args: string[]): { medianMs: number; minMs: number } {
  const samples: number[] = [];
  for (let index = 0; index < runs + 2; index++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const elapsed = performance.now() - started;
    if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
    if (index >= 2) samples.push(elapsed); // two warm-up runs fill the OS file cache
  }
  return { medianMs: median(samples), minMs: Math.min(...samples) };
}

const rows = [
  ['node -e 0 (the floor)', time(['-e', '0'])],
  ['periscope --version', time([bin, '--version'])],
  ['periscope extract page.html', time([bin, 'extract', page])],
] as const;
console.log(`CLI cold start, ${runs} runs each (node ${process.version})`);
for (const [name, { medianMs, minMs }] of rows) {
  console.log(
    `${name.padEnd(30)} median ${medianMs.toFixed(1).padStart(6)} ms   min ${minMs.toFixed(1).padStart(6)} ms`,
  );
}
