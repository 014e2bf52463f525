// A child process for the shared-pacing tests (src/search/shared-pacer.test.ts, through store-processes.ts; never
// imported): one library Periscope on a shared store, searching a Brave-shaped stand-in on 127.0.0.1 with pacing.
// Usage: node paced-search-worker.ts '<PacedSearchSpec JSON>'. Prints `ready`, waits for `go`, runs the searches,
// then prints a PacedSearchReport: when each request left this process (request-leaves.ts) and each call's outcome.
import { createInterface } from 'node:readline';
import { createPeriscope } from '../index.ts';
import { queryOf, type RequestLeave, recordRequestLeaves } from './request-leaves.ts';

export interface PacedSearchSpec {
  /** The store every worker shares (`store.url`). */
  storeUrl: string;
  /** The stand-in's base URL (`providers.brave.baseUrl`). */
  baseUrl: string;
  intervalMs: number;
  /** Searches to run, `lanes` at a time; the queries are `<name> <index>`. */
  name: string;
  searches: number;
  lanes: number;
}

export interface PacedSearchReport {
  leaves: RequestLeave[];
  /** Each search's outcome: `ok` or its error code. */
  codes: string[];
}

const spec = JSON.parse(process.argv[2] ?? '{}') as PacedSearchSpec;
const leaves: RequestLeave[] = [];
recordRequestLeaves((leave) => leaves.push(leave), queryOf);

const periscope = createPeriscope({
  network: { allowPrivateNetwork: ['127.0.0.1/32'] },
  store: { url: spec.storeUrl },
  cache: { enabled: false },
  limits: { repeatLookups: false },
  search: { chain: ['brave'], timeoutMs: 60_000 },
  providers: { brave: { baseUrl: spec.baseUrl, apiKey: 'stand-in-key', minIntervalMs: spec.intervalMs } },
});
await periscope.store();
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) if (line.trim() === 'go') break;
lines.close();
process.stdin.destroy();

const codes: string[] = [];
let next = 0;
const lane = async (): Promise<void> => {
  while (next < spec.searches) {
    const result = await periscope.search({ query: `${spec.name} ${next++}` });
    const error = result.isError ? (result.data as { error?: { code?: string } }).error : undefined;
    codes.push(result.isError ? (error?.code ?? 'error') : 'ok');
  }
};
await Promise.all(Array.from({ length: spec.lanes }, lane));
await periscope.close();
process.stdout.write(`${JSON.stringify({ leaves, codes } satisfies PacedSearchReport)}\n`);
