// Search pacing in one process, through the library: a request that never left gives its turn back; one that left
// keeps it. Marginalia (one request at a time, 10 s apart by default) is the provider a machine without network
// met first: every search after the first waited out the interval before failing in turn.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { createPeriscope } from '../index.ts';
import type { LookupFunction } from '../net/types.ts';
import { startTestServer } from '../testing/test-server.ts';

/** A port on 127.0.0.1 nothing listens on (opened, then closed): connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** How Marginalia's attempt in a search ended: `ok`, or its error code (`NETWORK`, `RATE_LIMITED` …). */
async function searchCode(periscope: ReturnType<typeof createPeriscope>, query: string): Promise<string> {
  const result = await periscope.search({ query });
  if (!result.isError) return 'ok';
  const data = result.data as { attempts?: Array<{ code?: string; reason?: string }> };
  const attempt = data.attempts?.[0];
  return `${attempt?.code ?? 'no attempt'}${attempt?.reason === 'queue' ? ' (queue)' : ''}`;
}

/** Marginalia alone in the chain, one request an hour: a turn that is kept refuses the next search at once. */
function marginaliaOnly(baseUrl: string, lookup?: LookupFunction) {
  return createPeriscope(
    {
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      cache: { enabled: false },
      limits: { repeatLookups: false },
      search: { chain: ['marginalia'] },
      providers: { marginalia: { baseUrl, minIntervalMs: 3_600_000 } },
    },
    lookup ? { lookup } : {},
  );
}

test('no network: a request that never left (connection refused, lookup failed) does not cost a pacing turn', async () => {
  // Connection refused: each search fails on its own connection, none waits (an hour) or is refused for the queue.
  const refused = marginaliaOnly(`http://127.0.0.1:${await closedPort()}`);
  assert.deepEqual(
    [await searchCode(refused, 'first'), await searchCode(refused, 'second')],
    ['NETWORK', 'NETWORK'],
  );
  await refused.close();
  // A failed lookup: nothing was even connected.
  const lookup: LookupFunction = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND marginalia.test'), { code: 'ENOTFOUND' });
  };
  const unresolved = marginaliaOnly('http://marginalia.test', lookup);
  const codes = [
    await searchCode(unresolved, 'first'),
    await searchCode(unresolved, 'second'),
    await searchCode(unresolved, 'third'),
  ];
  assert.equal(new Set(codes).size, 1, `codes: ${codes}`);
  assert.equal(codes[0], 'NETWORK');
  await unresolved.close();
});

test('a request that left keeps its turn: the next search within the interval is refused for the queue', async () => {
  const server = await startTestServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results: [] }));
  });
  const periscope = marginaliaOnly(server.url);
  assert.deepEqual(
    [await searchCode(periscope, 'first'), await searchCode(periscope, 'second')],
    ['ok', 'RATE_LIMITED (queue)'],
  );
  await periscope.close();
  await server.close();
});
