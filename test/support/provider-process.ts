// A search provider (Brave's API) and a page on 127.0.0.1, in a process of its own, for test/multi-instance.test.ts:
// the times it records are not held up by the test's own work (a thousand calls in flight). Never imported.
// Prints `listening <url>`; `GET /__seen` answers what it saw: { arrivals (epoch ms), pageRequests }.
import { createServer } from 'node:http';

const PAGE = `<!doctype html><html><head><title>Shared page</title></head><body><article><h1>Shared page</h1>
<p>${'Fetched once, read by every instance from the shared cache. '.repeat(12)}</p></article></body></html>`;

const arrivals: number[] = [];
let pageRequests = 0;

const server = createServer((request, response) => {
  const at = performance.timeOrigin + performance.now();
  const url = new URL(request.url ?? '/', 'http://stand-in');
  if (url.pathname === '/brave/res/v1/web/search') {
    arrivals.push(at);
    const query = url.searchParams.get('q') ?? '';
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
