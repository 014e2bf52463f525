// Gateway under load, loopback only: `periscope serve` (a real child process, an API key, a SQLite store, the
// cache off) reading a local origin page through POST /v1/tools/web_fetch, side by side with a plain Node HTTP
// proxy that just fetches the same page (bench/gateway-peers.ts), at 50 and 500 concurrent connections, and the
// same reads made by the library with no HTTP in front (periscope.fetch() loops, its own process); then
// the gateway holding 1 000 concurrent connections, with its peak RSS. Load comes from autocannon in this process;
// origin, proxy and gateway each run in their own process. Bounded: a fixed duration per case, then it stops.
// Run: npx node bench/gateway.bench.ts [secondsPerCase]   (default 10; writes bench/results/gateway.json)
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { parsePrometheusText } from '../src/testing/prometheus-text.ts';

const secondsPerCase = Math.min(60, Math.max(1, Number(process.argv[2] ?? 10)));
const BIN = new URL('../bin/periscope.js', import.meta.url).pathname;
const PEERS = new URL('./gateway-peers.ts', import.meta.url).pathname;
const children: ChildProcess[] = [];

interface Row {
  target: string;
  connections: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  failures: number;
  /** What the failures were: errors, timeouts, resets and each non-2xx status. */
  failed: Record<string, number>;
  /** Calls still running when the case ended: the load generator closed their connections, the gateway aborted them. */
  cutAtEnd: number;
}

/** Spawns a process and resolves with the first stdout line matching `ready`. */
function start(args: string[], ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  let errors = '';
  child.stderr?.on('data', (chunk) => {
    errors += chunk;
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      const match = ready.exec(output);
      if (match) resolve({ child, match });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${errors}`)));
  });
}

function stopAll(): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}
process.on('exit', stopAll);

/**
 * Failures the load generator cannot see, from the gateway's /metrics: tool calls that answered 200 with
 * `isError` (by code), and gateway answers other than 200 (by status). Cumulative since the gateway started.
 */
async function gatewayFailures(
  url: string,
  headers: Record<string, string>,
): Promise<Record<string, number>> {
  const families = parsePrometheusText(await (await fetch(`${url}/metrics`, { headers })).text());
  const counts: Record<string, number> = {};
  for (const sample of families.get('periscope_tool_errors_total')?.samples ?? []) {
    counts[`${sample.labels.tool} ${sample.labels.code}`] = sample.value;
  }
  for (const sample of families.get('periscope_http_requests_total')?.samples ?? []) {
    if (sample.labels.status !== '200' && sample.labels.route !== '/metrics') {
      counts[`HTTP ${sample.labels.status} ${sample.labels.route}`] = sample.value;
    }
  }
  return counts;
}

function since(now: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [name, value] of Object.entries(now)) {
    if (value - (before[name] ?? 0) > 0) delta[name] = value - (before[name] ?? 0);
  }
  return delta;
}

/** Peak and current RSS of a process, in MB (Linux /proc). */
function memoryOf(pid: number): { peakMb: number; rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
}

/** Resets the peak-RSS mark (Linux ≥ 4.0), so the next reading covers only what follows. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Tool errors answered with 200 count as failures too (the page must really have been read). */
function addToolErrors(row: Row, errors: Record<string, number>): void {
  for (const [name, count] of Object.entries(errors)) {
    if (name.startsWith('HTTP ')) {
      row.failed[`gateway answered ${name.slice(5)}`] = count; // counted already, as autocannon's non-2xx
      continue;
    }
    if (name.endsWith(' ABORTED')) {
      row.cutAtEnd += count; // in flight when the load generator stopped and closed its connections: no answer
      continue;
    }
    row.failed[name] = count; // answered 200, but with isError: not a page read
    row.failures += count;
    row.requests -= count;
  }
}

async function load(
  target: string,
  url: string,
  headers: Record<string, string>,
  body: string,
  connections: number,
  duration: number,
): Promise<{ row: Row; result: Result }> {
  const result = await autocannon({ url, method: 'POST', headers, body, connections, duration, timeout: 30 });
  const failures = result.errors + result.timeouts + result.non2xx + result.resets;
  const failed: Record<string, number> = {};
  for (const [name, count] of Object.entries({
    errors: result.errors,
    timeouts: result.timeouts,
    resets: result.resets,
  })) {
    if (count > 0) failed[name] = count;
  }
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    if (!status.startsWith('2') && count > 0) failed[`HTTP ${status}`] = count;
  }
  return {
    result,
    row: {
      target,
      connections,
      rps: result.requests.average,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      requests: result['2xx'],
      failures,
      failed,
      cutAtEnd: 0,
    },
  };
}

/** The same reads with no HTTP in front: `periscope.fetch()` in a process of its own (gateway-peers.ts library). */
function libraryRow(pageUrl: string, connections: number, config: string): Row {
  const output = execFileSync(
    process.execPath,
    [PEERS, 'library', pageUrl, String(connections), String(secondsPerCase), config],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: (secondsPerCase + 60) * 1000 },
  );
  const measured = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as {
    rps: number;
    p50Ms: number;
    p99Ms: number;
    requests: number;
    failures: number;
  };
  return {
    target: 'library',
    connections,
    rps: measured.rps,
    p50Ms: measured.p50Ms,
    p99Ms: measured.p99Ms,
    requests: measured.requests,
    failures: measured.failures,
    failed: measured.failures > 0 ? { 'web_fetch errors': measured.failures } : {},
    cutAtEnd: 0,
  };
}

const folder = mkdtempSync(join(tmpdir(), 'periscope-gateway-bench-'));
try {
  const origin = await start([PEERS, 'origin'], /listening (\d+)/);
  const originUrl = `http://127.0.0.1:${origin.match[1]}`;
  const pageUrl = `${originUrl}/article`;
  const config = join(folder, 'periscope.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      store: { url: `sqlite://${join(folder, 'state.db')}` },
      cache: { enabled: false },
    }),
  );
  const key = execFileSync(
    process.execPath,
    [BIN, 'keys', 'create', '--agent', 'bench', '--config', config],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  ).trim();
  const gateway = await start([BIN, 'serve', '--port', '0', '--config', config], /gateway on (http:\S+)/);
  const gatewayPid = gateway.child.pid as number;
  const gatewayUrl = gateway.match[1] as string;
  const proxy = await start([PEERS, 'proxy', originUrl], /listening (\d+)/);
  const targets = {
    periscope: {
      url: `${gateway.match[1]}/v1/tools/web_fetch`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    },
    'plain proxy': {
      url: `http://127.0.0.1:${proxy.match[1]}/`,
      headers: { 'content-type': 'application/json' },
    },
  };
  const body = JSON.stringify({ url: pageUrl });

  const sample = await fetch(targets.periscope.url, {
    method: 'POST',
    headers: targets.periscope.headers,
    body,
  });
  const sampled = (await sample.json()) as {
    isError: boolean;
    output: string;
    data: { totalLength: number };
  };
  if (!sample.ok || sampled.isError) throw new Error(`the gateway did not read the page: ${sampled.output}`);
  const pageBytes = (await (await fetch(pageUrl)).arrayBuffer()).byteLength;

  console.log(
    `Gateway load on 127.0.0.1: POST /v1/tools/web_fetch of a ${(pageBytes / 1024).toFixed(1)} KB article ` +
      `(${sampled.data.totalLength} chars of markdown), cache off, API key, SQLite store; ` +
      `${secondsPerCase} s per case; node ${process.version}, ${availableParallelism()} CPUs`,
  );
  for (const target of Object.values(targets)) await load('warm-up', target.url, target.headers, body, 50, 2);

  const rows: Row[] = [];
  const format = (row: Row) =>
    `${String(row.connections).padStart(5)} conns  ${row.target.padEnd(12)} ${Math.round(row.rps).toLocaleString('en').padStart(8)} rps` +
    `  p50 ${row.p50Ms.toFixed(1).padStart(7)} ms  p99 ${row.p99Ms.toFixed(1).padStart(7)} ms  ` +
    `${row.requests.toLocaleString('en').padStart(8)} ok  ${row.failures} failed` +
    (row.cutAtEnd > 0 ? `, ${row.cutAtEnd} cut at the end` : '') +
    (row.failures > 0
      ? ` (${Object.entries(row.failed)
          .map(([name, count]) => `${name}: ${count}`)
          .join(', ')})`
      : '');
  for (const connections of [50, 500]) {
    const pair: Row[] = [];
    for (const [name, target] of Object.entries(targets)) {
      const seen = await gatewayFailures(gatewayUrl, targets.periscope.headers);
      const { row } = await load(name, target.url, target.headers, body, connections, secondsPerCase);
      if (name === 'periscope')
        addToolErrors(row, since(await gatewayFailures(gatewayUrl, targets.periscope.headers), seen));
      pair.push(row);
      console.log(format(row));
    }
    const [periscope, plain] = pair as [Row, Row];
    console.log(
      `${' '.repeat(13)}Periscope's cost: ${(plain.rps / periscope.rps).toFixed(1)}× fewer requests/s, ` +
        `p50 ${(periscope.p50Ms / plain.p50Ms).toFixed(1)}×, p99 ${(periscope.p99Ms / plain.p99Ms).toFixed(1)}× the plain proxy's`,
    );
    const library = libraryRow(pageUrl, connections, config);
    console.log(format(library));
    console.log(
      `${' '.repeat(13)}the gateway's own share: it serves ${((periscope.rps / library.rps) * 100).toFixed(0)} % of the ` +
        'calls/s the tool makes with no HTTP in front',
    );
    rows.push(...pair, library);
  }

  const before = memoryOf(gatewayPid);
  const peakReset = resetPeak(gatewayPid);
  const seenBeforeHold = await gatewayFailures(gatewayUrl, targets.periscope.headers);
  const hold = await load(
    'periscope',
    targets.periscope.url,
    targets.periscope.headers,
    body,
    1000,
    secondsPerCase,
  );
  const after = memoryOf(gatewayPid);
  addToolErrors(
    hold.row,
    since(await gatewayFailures(gatewayUrl, targets.periscope.headers), seenBeforeHold),
  );
  const holdOk = hold.row.failures === 0 && hold.row.requests > 0;
  console.log(format(hold.row));
  console.log(
    `1 000 connections held for ${secondsPerCase} s: ${hold.row.failures === 0 ? 'no errors' : `${hold.row.failures} failures (errors ${hold.result.errors}, timeouts ${hold.result.timeouts}, non-2xx ${hold.result.non2xx}, resets ${hold.result.resets})`}; ` +
      `gateway RSS ${before.rssMb.toFixed(0)} MB before, peak ${after.peakMb.toFixed(0)} MB ${peakReset ? 'during the hold' : 'over the whole run'}, ${after.rssMb.toFixed(0)} MB after`,
  );

  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL('./results/gateway.json', import.meta.url),
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        node: process.version,
        cpus: availableParallelism(),
        secondsPerCase,
        pageBytes,
        rows,
        hold: {
          ...hold.row,
          rssBeforeMb: before.rssMb,
          peakRssMb: after.peakMb,
          peakCoversHoldOnly: peakReset,
        },
      },
      null,
      2,
    )}\n`,
  );
  if (!holdOk) process.exitCode = 1;
} finally {
  stopAll();
  rmSync(folder, { recursive: true, force: true });
}
