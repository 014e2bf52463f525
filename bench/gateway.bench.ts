// Gateway under load, loopback only: `periscope serve` (a real child process, an API key, a SQLite store, the
// page cache on) reading local origin pages through POST /v1/tools/web_fetch, side by side in one run with two
// baselines in processes of their own (bench/gateway-peers.ts), for each of two pages: `article`, a long report
// (~11 KB of HTML), and `small`, a news story (~6 KB of HTML), where a call's fixed cost weighs most:
//   cached    the same URL every call (answered from the page cache) vs a plain Node proxy relaying the page;
//   uncached  a unique query string every call (fetched and extracted each time) vs a plain Node proxy that
//             fetches the page and runs the same extractor in-process: the ratio is Periscope's own overhead.
//             Loaded once per Periscope-Return mode (`--returns`, default both,output: the page text twice,
//             in `output` and `data.text`, or once, in `output`), each mode a target of its own in the rounds.
// First, where a call's time goes: sequential calls to a gateway of its own started with PERISCOPE_STAGE_TIMING=1
// (src/stage-timing.ts), each stage's mean wall ms per call (one call at a time on an idle machine, a synchronous
// stage's wall time is its CPU time; `network` also waits for the origin), and the gateway process's CPU per call
// (/proc, every thread), cached and uncached, beside the baselines' own latency and CPU per call.
// Load comes from autocannon in this process; every answer is checked (a tool error counts as a failure, not a
// read). Peak RSS of the gateway (with its workers) and of the baseline is measured per case. Bounded: a fixed
// duration per case, then it stops. On a shared machine compare ratios, not absolute figures.
//
// Run: npx node bench/gateway.bench.ts [SECONDS] [--connections 50,200] [--workers 1,2] [--calls 300]
//      [--rounds 3] [--breakdown-only] [--cases cached,uncached] [--pages article,small] [--returns both,output]
// Each case's SECONDS are cut into rounds that alternate baseline and gateways (a neighbour's load on a shared
// machine then falls on all of them); req/s is over all rounds, p50/p99 over all their calls, counting each call
// still unanswered at a round's end with the time it had waited (autocannon's own percentiles leave those out).
//      npx node bench/gateway.bench.ts --full --workers 1   (the issue's setting: 1 000 connections, 20 s per case)
// Defaults: 6 s per case in 3 rounds, 100 connections, 1 worker, 300 sequential calls per breakdown case.
// Writes bench/results/gateway.json.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { parsePrometheusText } from '../src/testing/prometheus-text.ts';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    connections: { type: 'string' },
    workers: { type: 'string' },
    calls: { type: 'string' },
    full: { type: 'boolean' },
    'breakdown-only': { type: 'boolean' },
    cases: { type: 'string' },
    rounds: { type: 'string' },
    pages: { type: 'string' },
    returns: { type: 'string' },
  },
});
const secondsPerCase = Math.min(120, Math.max(1, Number(positionals[0] ?? (flags.full ? 20 : 6))));
const connectionCounts = (flags.connections ?? (flags.full ? '1000' : '100')).split(',').map(Number);
const workerCounts = (flags.workers ?? '1').split(',').map(Number);
const breakdownCalls = Math.max(10, Number(flags.calls ?? 300));
const cases = (flags.cases ?? 'cached,uncached').split(',');
const pageNames = (flags.pages ?? 'article,small').split(',');
/** Periscope-Return modes loaded in the uncached case (each a target of its own, side by side). */
const returnModes = (flags.returns ?? 'both,output').split(',');
/** Each case's time is cut in rounds that alternate the targets, so a neighbour's load falls on all of them. */
const rounds = Math.max(1, Number(flags.rounds ?? 3));
const BIN = new URL('../bin/periscope.js', import.meta.url).pathname;
const PEERS = new URL('./gateway-peers.ts', import.meta.url).pathname;
const children: ChildProcess[] = [];
const STAGES = [
  'parse-auth',
  'policy-store',
  'cache',
  'url-check',
  'robots',
  'network',
  'extraction',
  'envelope',
  'serialisation',
] as const;

interface Row {
  case: string;
  target: string;
  connections: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Connections that got no answer in a whole round (summed over rounds). */
  neverAnswered: number;
  ok: number;
  failures: number;
  failed: Record<string, number>;
  peakRssMb: number;
}

/** Spawns a process and resolves with the first stdout line matching `ready`. */
function start(
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
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

/** A process and its children (cluster workers), Linux /proc. */
function processTree(pid: number): number[] {
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    return [pid, ...kids.flatMap((kid) => processTree(Number(kid)))];
  } catch {
    return [pid];
  }
}

/** Peak RSS of a process and its children, in MB (the sum of each one's peak). */
function peakRssMb(pid: number): number {
  let kb = 0;
  for (const one of processTree(pid)) {
    try {
      const status = readFileSync(`/proc/${one}/status`, 'utf8');
      kb += Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

/** Resets the peak-RSS marks (Linux ≥ 4.0), so the next reading covers only what follows. */
function resetPeak(pid: number): void {
  for (const one of processTree(pid)) {
    try {
      writeFileSync(`/proc/${one}/clear_refs`, '5');
    } catch {
      // older kernel: the peak covers the whole run
    }
  }
}

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  pid: number;
}

/** A tool result that is not an error starts like this (the baselines answer `{"status":200`). */
function answeredOk(body: string): boolean {
  return body.startsWith('{"isError":false') || body.startsWith('{"status":200');
}

async function load(
  caseName: string,
  target: Target,
  body: string,
  connections: number,
  seconds: number,
): Promise<Row & { seconds: number; samples: number[] }> {
  let toolErrors = 0;
  resetPeak(target.pid);
  const latencies: number[] = [];
  const lastAnswer = new Map<object, number>();
  const startedAt = performance.now();
  const running = autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body,
    idReplacement: true,
    connections,
    duration: seconds,
    timeout: 30,
    requests: [
      {
        onResponse: (status: number, answer: string) => {
          if (status === 200 && !answeredOk(answer)) toolErrors += 1;
        },
      },
    ],
  });
  running.on('response', (client, _status, _bytes, ms) => {
    latencies.push(ms);
    lastAnswer.set(client, performance.now());
  });
  const result: Result = await running;
  const endedAt = performance.now();
  // autocannon's percentiles leave out the calls still unanswered when the round ends, so a server that leaves
  // some connections unread for the whole round looks fast (seen: a baseline that answered 236 of 1 000
  // connections in 10 s, p99 5.4 s by autocannon). Each unanswered call counts here with the time it had waited
  // by the end, at least: since its connection's last answer, or the whole round if it had none.
  const waiting = [...lastAnswer.values()].map((at) => endedAt - at);
  const neverAnswered = Math.max(0, connections - lastAnswer.size);
  for (let index = 0; index < neverAnswered; index++) waiting.push(endedAt - startedAt);
  const samples = [...latencies, ...waiting];
  const failed: Record<string, number> = {};
  for (const [name, count] of Object.entries({
    errors: result.errors,
    timeouts: result.timeouts,
    resets: result.resets,
    'tool errors': toolErrors,
  })) {
    if (count > 0) failed[name] = count;
  }
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    if (!status.startsWith('2') && count > 0) failed[`HTTP ${status}`] = count;
  }
  const failures = result.errors + result.timeouts + result.non2xx + toolErrors;
  return {
    case: caseName,
    target: target.name,
    connections,
    rps: (result['2xx'] - toolErrors) / result.duration,
    p50Ms: percentile(samples, 0.5),
    p99Ms: percentile(samples, 0.99),
    neverAnswered,
    samples,
    ok: result['2xx'] - toolErrors,
    failures,
    failed,
    peakRssMb: peakRssMb(target.pid),
    seconds: result.duration,
  };
}

function percentile(values: number[], fraction: number): number {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

/** Rounds of one target as one row: req/s over all of them, p50 and p99 of all their calls, the highest peak. */
function merged(parts: Array<Row & { seconds: number; samples: number[] }>): Row {
  const samples = parts.flatMap((part) => part.samples);
  const first = parts[0] as Row;
  const failed: Record<string, number> = {};
  for (const part of parts)
    for (const [name, count] of Object.entries(part.failed)) failed[name] = (failed[name] ?? 0) + count;
  const ok = parts.reduce((sum, part) => sum + part.ok, 0);
  return {
    case: first.case,
    target: first.target,
    connections: first.connections,
    rps: ok / parts.reduce((sum, part) => sum + part.seconds, 0),
    p50Ms: percentile(samples, 0.5),
    p99Ms: percentile(samples, 0.99),
    neverAnswered: parts.reduce((sum, part) => sum + part.neverAnswered, 0),
    ok,
    failures: parts.reduce((sum, part) => sum + part.failures, 0),
    failed,
    peakRssMb: Math.max(...parts.map((part) => part.peakRssMb)),
  };
}

function format(row: Row): string {
  const failures =
    row.failures > 0
      ? `  ${row.failures} failed (${Object.entries(row.failed)
          .map(([name, count]) => `${name}: ${count}`)
          .join(', ')})`
      : '';
  const starved = row.neverAnswered > 0 ? `  ${row.neverAnswered} connections never answered in a round` : '';
  return (
    `${row.case.padEnd(17)}${String(row.connections).padStart(5)} conns  ${row.target.padEnd(22)}` +
    `${Math.round(row.rps).toLocaleString('en').padStart(7)} rps  p50 ${row.p50Ms.toFixed(0).padStart(5)} ms` +
    `  p99 ${row.p99Ms.toFixed(0).padStart(5)} ms  peak RSS ${row.peakRssMb.toFixed(0).padStart(4)} MB` +
    `${row.ok.toLocaleString('en').padStart(9)} ok${failures}${starved}`
  );
}

/** The stage sums (wall ms) a gateway (stage timing on) reports on /metrics. */
async function stageSums(url: string, headers: Record<string, string>): Promise<Map<string, number>> {
  const families = parsePrometheusText(await (await fetch(`${url}/metrics`, { headers })).text());
  const sums = new Map<string, number>();
  for (const sample of families.get('periscope_stage_ms_total')?.samples ?? [])
    sums.set(sample.labels.stage ?? '', sample.value);
  return sums;
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU time (user + system, every thread) of a process and its children so far, ms (Linux /proc). */
function processCpuMs(pid: number): number {
  let ticks = 0;
  for (const one of processTree(pid)) {
    try {
      // The fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${one}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return (ticks * 1000) / CLOCK_TICKS;
}

/** `calls` calls one after the other; the mean latency the client saw and the target's CPU per call, ms. */
async function sequential(
  target: Target,
  body: (index: number) => string,
  calls: number,
): Promise<{ clientMs: number; cpuMs: number }> {
  let total = 0;
  const cpuBefore = processCpuMs(target.pid);
  for (let index = 0; index < calls; index++) {
    const started = performance.now();
    const response = await fetch(target.url, { method: 'POST', headers: target.headers, body: body(index) });
    const text = await response.text();
    total += performance.now() - started;
    if (!response.ok || !answeredOk(text)) throw new Error(`${target.name} failed: ${text.slice(0, 300)}`);
  }
  return { clientMs: total / calls, cpuMs: (processCpuMs(target.pid) - cpuBefore) / calls };
}

/**
 * Waits (at most 20 s) until the bench's own processes are idle: a target whose clients went away at the end of
 * its round may still be working through the calls it had taken (the baselines do not stop a fetch and
 * extraction whose client left; the gateway does), and that work would fall on the next target's round.
 */
async function quiet(): Promise<void> {
  const pids = children.filter((child) => child.exitCode === null).map((child) => child.pid as number);
  const cpu = () => pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const deadline = performance.now() + 20_000;
  let last = cpu();
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = cpu();
    if (now - last <= 25) return; // under a tenth of a core over the last quarter second
    last = now;
  }
}

interface Breakdown {
  case: string;
  page: string;
  clientMs: number;
  gatewayMs: number;
  /** The gateway process's CPU per call (every thread), from /proc. */
  processCpuMs: number;
  /** Per stage: wall ms per call (calls one at a time: a synchronous stage's wall time is its CPU time). */
  stages: Record<string, number>;
  baseline: string;
  baselineClientMs: number;
  baselineCpuMs: number;
}

async function breakdown(
  caseName: string,
  page: Page,
  gateway: Target & { base: string },
  baseline: Target,
  body: (index: number) => string,
): Promise<Breakdown> {
  const before = await stageSums(gateway.base, gateway.headers);
  const client = await sequential(gateway, body, breakdownCalls);
  const after = await stageSums(gateway.base, gateway.headers);
  const perCall = (stage: string) => ((after.get(stage) ?? 0) - (before.get(stage) ?? 0)) / breakdownCalls;
  const stages: Record<string, number> = {};
  for (const stage of STAGES) stages[stage] = perCall(stage);
  const gatewayMs = perCall('call');
  const named = Object.values(stages).reduce((sum, ms) => sum + ms, 0);
  stages['other (tool wrappers, awaits)'] = gatewayMs - named;
  stages['outside handler (HTTP, sockets)'] = client.clientMs - gatewayMs;
  const base = await sequential(baseline, body, breakdownCalls);
  return {
    case: caseName,
    page: page.name,
    clientMs: client.clientMs,
    gatewayMs,
    processCpuMs: client.cpuMs,
    stages,
    baseline: baseline.name,
    baselineClientMs: base.clientMs,
    baselineCpuMs: base.cpuMs,
  };
}

function printBreakdown(row: Breakdown): void {
  console.log(
    `\n${row.case}, ${row.page} page: ${breakdownCalls} sequential calls, ${row.clientMs.toFixed(3)} ms per call at ` +
      `the client (${row.gatewayMs.toFixed(3)} ms inside the gateway's handler), gateway process CPU ` +
      `${row.processCpuMs.toFixed(3)} ms per call (every thread); ${row.baseline}: ${row.baselineClientMs.toFixed(3)} ` +
      `ms, CPU ${row.baselineCpuMs.toFixed(3)} ms per call`,
  );
  for (const [stage, ms] of Object.entries(row.stages)) {
    const share = (ms / row.clientMs) * 100;
    console.log(`  ${stage.padEnd(34)} ${ms.toFixed(3).padStart(8)} ms  ${share.toFixed(1).padStart(5)} %`);
  }
}

interface Page {
  name: string;
  url: string;
  bytes: number;
  chars: number;
}

const PAGE_PATHS: Record<string, string> = { article: '/article', small: '/small' };

const folder = mkdtempSync(join(tmpdir(), 'periscope-gateway-bench-'));
try {
  const origin = await start([PEERS, 'origin'], /listening (\d+)/);
  const originUrl = `http://127.0.0.1:${origin.match[1]}`;
  const config = join(folder, 'periscope.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      store: { url: `sqlite://${join(folder, 'state.db')}` },
      cache: { enabled: true },
    }),
  );
  const key = execFileSync(
    process.execPath,
    [BIN, 'keys', 'create', '--agent', 'bench', '--config', config],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  ).trim();
  const authorised = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const serve = async (workers: number, env: NodeJS.ProcessEnv) => {
    const args = [BIN, 'serve', '--port', '0', '--config', config, '--workers', String(workers)];
    const gateway = await start(args, /gateway on (http:\S+)/, env);
    const base = gateway.match[1] as string;
    return { base, child: gateway.child, pid: gateway.child.pid as number };
  };
  const relay = await start([PEERS, 'proxy', originUrl], /listening (\d+)/);
  const extracting = await start([PEERS, 'proxy-extract', originUrl], /listening (\d+)/);
  const json = { 'content-type': 'application/json' };
  const plainProxy: Target = {
    name: 'plain proxy',
    url: `http://127.0.0.1:${relay.match[1]}/`,
    headers: json,
    pid: relay.child.pid as number,
  };
  const extractProxy: Target = {
    name: 'proxy + extractor',
    url: `http://127.0.0.1:${extracting.match[1]}/`,
    headers: json,
    pid: extracting.child.pid as number,
  };

  // Where the time goes: a gateway of its own with stage timing on (its probes cost a little, so the gateways
  // under load run without), one worker, one call at a time (no queueing in the figures); stopped before the load.
  const timed = await serve(1, { ...process.env, PERISCOPE_STAGE_TIMING: '1' });
  const timedTarget = {
    name: 'periscope ×1 (stage timing)',
    url: `${timed.base}/v1/tools/web_fetch`,
    base: timed.base,
    headers: authorised,
    pid: timed.pid,
  };
  const pages: Page[] = [];
  for (const name of pageNames) {
    const url = `${originUrl}${PAGE_PATHS[name] ?? `/${name}`}`;
    const sample = await fetch(timedTarget.url, {
      method: 'POST',
      headers: authorised,
      body: JSON.stringify({ url }),
    });
    const sampled = (await sample.json()) as {
      isError: boolean;
      output: string;
      data: { totalLength: number };
    };
    if (!sample.ok || sampled.isError) throw new Error(`the gateway did not read ${url}: ${sampled.output}`);
    const bytes = (await (await fetch(url)).arrayBuffer()).byteLength;
    pages.push({ name, url, bytes, chars: sampled.data.totalLength });
  }
  console.log(
    `Gateway on 127.0.0.1: POST /v1/tools/web_fetch of ${pages
      .map(
        (page) =>
          `the ${page.name} page (${(page.bytes / 1024).toFixed(1)} KB of HTML, ${page.chars} chars of markdown)`,
      )
      .join(
        ' and ',
      )}, API key, SQLite store, page cache on; ${secondsPerCase} s per case; node ${process.version}, ` +
      `${availableParallelism()} CPUs`,
  );
  const breakdowns: Breakdown[] = [];
  let serial = 0;
  for (const page of pages) {
    const sameUrl = JSON.stringify({ url: page.url });
    const freshBody = () => JSON.stringify({ url: `${page.url}?serial=${Date.now()}-${serial++}` });
    await sequential(timedTarget, () => sameUrl, 30);
    await sequential(timedTarget, freshBody, 30);
    breakdowns.push(
      await breakdown('cached', page, timedTarget, plainProxy, () => sameUrl),
      await breakdown('uncached', page, timedTarget, extractProxy, freshBody),
    );
  }
  for (const row of breakdowns) printBreakdown(row);
  console.log('');
  timed.child.kill('SIGTERM');
  await new Promise((resolve) => timed.child.once('exit', resolve));

  const gateways: Array<Target & { workers: number; returnMode: string }> = [];
  for (const workers of workerCounts) {
    const gateway = await serve(workers, process.env);
    for (const returnMode of returnModes) {
      gateways.push({
        name: `periscope ×${workers}${returnModes.length > 1 ? ` ${returnMode}` : ''}`,
        url: `${gateway.base}/v1/tools/web_fetch`,
        headers: returnMode === 'both' ? authorised : { ...authorised, 'periscope-return': returnMode },
        pid: gateway.pid,
        workers,
        returnMode,
      });
    }
  }

  const rows: Array<Row & { page: string; returnMode?: string }> = [];
  const ratios: Array<Record<string, unknown>> = [];
  const summary: string[] = [];
  for (const page of flags['breakdown-only'] ? [] : pages) {
    const sameUrl = JSON.stringify({ url: page.url });
    // autocannon puts a random id for [<id>]: every call a URL no cache holds.
    const uniqueUrl = JSON.stringify({ url: `${page.url}?id=[<id>]` });
    for (const target of [plainProxy, extractProxy, ...gateways]) {
      await autocannon({
        url: target.url,
        method: 'POST',
        headers: target.headers,
        body: sameUrl,
        connections: 20,
        duration: 1,
      });
    }
    for (const [caseName, body, baseline] of [
      ['cached', sameUrl, plainProxy],
      ['uncached', uniqueUrl, extractProxy],
    ] as const) {
      if (!cases.includes(caseName)) continue;
      // A cached answer is the same whatever the return mode asks: only `both` is loaded.
      const measuredGateways = gateways.filter(
        (gateway) => caseName === 'uncached' || gateway.returnMode === 'both',
      );
      for (const connections of connectionCounts) {
        const targets = [baseline, ...measuredGateways];
        const parts = targets.map(() => [] as Array<Row & { seconds: number; samples: number[] }>);
        const label = `${caseName} ${page.name}`;
        for (let round = 0; round < rounds; round++) {
          for (const [index, target] of targets.entries()) {
            await quiet();
            parts[index]?.push(
              await load(label, target, body, connections, Math.max(1, Math.round(secondsPerCase / rounds))),
            );
          }
        }
        const [base, ...measured] = parts.map(merged) as [Row, ...Row[]];
        rows.push({ ...base, page: page.name });
        console.log(format(base));
        for (const [index, gateway] of measuredGateways.entries()) {
          const row = measured[index] as Row;
          rows.push({ ...row, page: page.name, returnMode: gateway.returnMode });
          console.log(format(row));
          const ratio = row.rps / base.rps;
          ratios.push({
            case: caseName,
            page: page.name,
            pageBytes: page.bytes,
            returnMode: gateway.returnMode,
            connections,
            workers: gateway.workers,
            baseline: base.target,
            ratio,
            p99Ratio: row.p99Ms / base.p99Ms,
          });
          const line =
            `${gateway.name}: ${ratio.toFixed(2)}× the ${base.target}'s req/s, ` +
            `p99 ${(row.p99Ms / base.p99Ms).toFixed(2)}× its p99`;
          console.log(`${' '.repeat(16)}→ ${line}`);
          summary.push(
            `${label.padEnd(17)} ${(page.bytes / 1024).toFixed(1).padStart(5)} KB ${String(connections).padStart(5)} conns  ` +
              `return ${gateway.returnMode.padEnd(6)}  ${line}`,
          );
        }
      }
    }
  }
  if (summary.length > 0)
    console.log(`\nRatios (req/s against the baseline of each case):\n${summary.join('\n')}`);

  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL('./results/gateway.json', import.meta.url),
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        node: process.version,
        cpus: availableParallelism(),
        secondsPerCase,
        rounds,
        connections: connectionCounts,
        workers: workerCounts,
        returnModes,
        pages,
        breakdowns,
        rows,
        ratios,
      },
      null,
      2,
    )}\n`,
  );
  if (rows.some((row) => row.ok === 0)) process.exitCode = 1;
} finally {
  stopAll();
  rmSync(folder, { recursive: true, force: true });
}
