// A child process for the multi-process policy tests (spawned by policy-processes.test.ts, never imported).
// Usage: node policy-worker.ts '<PolicyWorkerSpec JSON>'. It prints `ready`, waits for `go` on stdin, makes its tool
// calls through createPeriscope (all at once), then prints `{ "codes": { "<agent> ok": N, "<agent> RATE_LIMITED": M } }`.
import { createInterface } from 'node:readline';
import type { PeriscopeConfigInput } from '../config/schema.ts';
import { createPeriscope } from '../index.ts';
import { createStandInSearchProvider } from './search-stand-in.ts';

export interface PolicyWorkerSpec {
  storeUrl: string;
  searchUrl: string;
  /** Queries are `<name> <n>`, distinct across workers. */
  name: string;
  limits: PeriscopeConfigInput['limits'];
  /** Calls made all at once: `calls` of `tool` as `agentId`. */
  tasks: Array<{ agentId: string; tool: 'web_search' | 'image_search'; calls: number }>;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as PolicyWorkerSpec;
const periscope = createPeriscope(
  {
    store: { url: spec.storeUrl },
    search: { chain: ['stand-in'] },
    cache: { enabled: false },
    limits: spec.limits,
  },
  { env: {}, providers: [createStandInSearchProvider(spec.searchUrl)] },
);
await periscope.store(); // open before `ready`, so the burst measures the calls only
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) if (line.trim() === 'go') break;
lines.close();
process.stdin.destroy();

const calls = spec.tasks.flatMap((task) =>
  Array.from({ length: task.calls }, async (_, index) => {
    const input = { query: `${spec.name} ${task.agentId} ${index}` };
    const options = { agentId: task.agentId };
    const result =
      task.tool === 'web_search'
        ? await periscope.search(input, options)
        : await periscope.imageSearch(input, options);
    return `${task.agentId} ${result.isError ? (result.data as { error: { code: string } }).error.code : 'ok'}`;
  }),
);
const codes: Record<string, number> = {};
for (const code of await Promise.all(calls)) codes[code] = (codes[code] ?? 0) + 1;
await periscope.close();
process.stdout.write(`${JSON.stringify({ codes })}\n`);
