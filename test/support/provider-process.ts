// A search provider (Brave's API) and a page on 127.0.0.1, in a process of its own, for test/multi-instance.test.ts:
// the times it records are not held up by the test's own work (a thousand calls in flight). Never imported.
// Prints `listening <url>`; `GET /__seen` answers what it saw: { arrivals, pageRequests }, each arrival
// `[at, earliest]` (epoch ms): read at `at`, and on the socket no sooner than `earliest` (see below).
import { createServer } from 'node:http';

const PAGE = `<!doctype html><html><head><title>Shared page</title></head><body><article><h1>Shared page</h1>
<p>${'Fetched once, read by every instance from the shared cache. '.repeat(12)}</p></article></body></html>`;

const clock = () => performance.timeOrigin + performance.now();
const arrivals: Array<[number, number]> = [];
let pageRequests = 0;

// When a request reached the socket, as this process can tell. It reads a request when it gets to it, which on a
// loaded machine can be tens of milliseconds after the request came (the process was not scheduled: a 1 ms timer
// here was seen firing 30–80 ms late). A beat every millisecond brackets that. The loop runs its timers (one beat at
// most) once per turn, and a request is read at most two turns after it came (one to accept the connection, one to
// read it), so at most three beats fall between its coming and its reading: it came after the fourth-last beat
// (`earliest`). When this process ran all along, `at - earliest` is three or four milliseconds; after a stall, as
// long as the stall.
const beats = [clock(), clock(), clock(), clock()];
setInterval(() => {
  beats.shift();
  beats.push(clock());
}, 1).unref();

const server = createServer((request, response) => {
  const at = clock();
  const url = new URL(request.url ?? '/', 'http://stand-in');
  if (url.pathname === '/brave/res/v1/web/search') {
    arrivals.push([at, Math.min(beats[0] as number, at)]);
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
