// A search provider (Brave's API) and a page on 127.0.0.1, in a process of its own, for test/multi-instance.test.ts:
// it reads requests while the test's own process is busy with a thousand calls. Never imported.
// Prints `listening <url>`; `GET /__seen` answers what it saw: { arrivals, pageRequests }, each arrival
// `[query, readNs]`: when this process read the search, on the machine's monotonic clock (src/testing/request-leaves.ts),
// which on a loaded machine can be well after it came; the test knows when each left.
import { createServer } from 'node:http';
import { monotonicNs, queryOf, type RequestArrival } from '../../src/testing/request-leaves.ts';

const PAGE = `<!doctype html><html><head><title>Shared page</title></head><body><article><h1>Shared page</h1>
<p>${'Fetched once, read by every instance from the shared cache. '.repeat(12)}</p></article></body></html>`;

const arrivals: RequestArrival[] = [];
let pageRequests = 0;

const server = createServer((request, response) => {
  const readNs = monotonicNs();
  const url = new URL(request.url ?? '/', 'http://stand-in');
  if (url.pathname === '/brave/res/v1/web/search') {
    const query = queryOf(request.url ?? '/');
    arrivals.push([query, readNs]);
    const results = [{ title: `About ${query}`, url: `https://one.example/${encodeURIComponent(query)}` }];
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ web: { results } }));
  } else if (url.pathname === '/page') {
    pageRequests++;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  } else if (url.pathname === '/__seen') {
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ arrivals, pageRequests }));
  } else {
    response.writeHead(404).end('not found');
  }
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
