// The two helpers bench/gateway.bench.ts runs beside the gateway, each in its own process on 127.0.0.1:
//   origin            serves two article pages, whatever the query string (the pages web_fetch reads; a unique
//                     query string per call makes every call a cache miss): /article, a long report (~11 KB of
//                     HTML, generated), and /small, a news story (~6 KB of HTML: bench/__fixtures__/
//                     news--harbour-dredging.html), where a call's fixed cost weighs most
//   proxy ORIGIN_URL  a plain Node HTTP proxy: POST { url } → fetches that page → { status, text } JSON; the
//                     baseline that shows what Periscope adds (guarded fetch, extraction, policy, JSON). Like
//                     Periscope's guarded client it opens a new connection per fetch (no pooling).
//   proxy-extract ORIGIN_URL
//                     the same proxy that also runs Periscope's own extractor (renderContent, markdown, as the
//                     local back-end calls it) on the page in-process and answers { status, text: markdown }: the
//                     baseline of an uncached web_fetch, so the ratio measures Periscope's own overhead.
// Each prints `listening <port>` on stdout once ready.
//   library PAGE_URL CONNECTIONS SECONDS CONFIG
//                     no HTTP in front: CONNECTIONS loops calling periscope.fetch() in this process for SECONDS,
//                     then one JSON line { rps, p50Ms, p99Ms, requests, failures }: what the tool itself costs, so
//                     the gateway's own share is the difference.
import { readFileSync } from 'node:fs';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderContent } from '../src/content/render-content.ts';
import { createPeriscope } from '../src/index.ts';

const [role, originUrl, ...rest] = process.argv.slice(2);

function articlePage(): string {
  const paragraph = (index: number) =>
    `<p>Paragraph ${index} of the report. Tide heights along the coast were measured every ten minutes, ` +
    'compared with the harmonic prediction, and the residuals plotted against the wind and the pressure. ' +
    `<a href="/notes/${index}">Notes</a> explain the method and the <em>uncertainties</em> involved.</p>`;
  const nav = Array.from(
    { length: 30 },
    (_, index) => `<li><a href="/section/${index}">Section ${index}</a></li>`,
  );
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tides of the Iroise Sea</title>',
    '<meta name="author" content="A. Marin"></head><body>',
    `<header><nav><ul>${nav.join('')}</ul></nav></header>`,
    '<main><article><h1>Tides of the Iroise Sea</h1>',
    ...Array.from({ length: 4 }, (_, section) => [
      `<h2>Part ${section + 1}</h2>`,
      ...Array.from({ length: 8 }, (_, index) => paragraph(section * 8 + index)),
    ]).flat(),
    '</article></main>',
    `<aside><h3>Related</h3><ul>${nav.slice(0, 10).join('')}</ul></aside>`,
    '<footer><p>© Observatory. All rights reserved.</p></footer></body></html>',
  ].join('\n');
}

function listen(server: ReturnType<typeof createServer>): void {
  server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
    process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
  });
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

if (role === 'origin') {
  const pages = new Map([
    ['/article', Buffer.from(articlePage())],
    ['/small', readFileSync(new URL('./__fixtures__/news--harbour-dredging.html', import.meta.url))],
  ]);
  const server = createServer((request, response) => {
    const page = pages.get(request.url?.split('?')[0] ?? '');
    if (page === undefined) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': page.length });
    response.end(page);
  });
  server.keepAliveTimeout = 5000;
  listen(server);
} else if ((role === 'proxy' || role === 'proxy-extract') && originUrl) {
  const extract = role === 'proxy-extract';
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { url } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { url: string };
      get(url, { agent: false }, (upstream) => {
        const body: Buffer[] = [];
        upstream.on('data', (chunk: Buffer) => body.push(chunk));
        upstream.on('end', async () => {
          const bytes = Buffer.concat(body);
          const text = extract
            ? (
                await renderContent({
                  url,
                  headers: upstream.headers as Record<string, string>,
                  body: bytes,
                  mode: 'markdown',
                })
              ).text
            : bytes.toString('utf8');
          const answer = JSON.stringify({ status: upstream.statusCode, text });
          response.writeHead(200, { 'content-type': 'application/json' }).end(answer);
        });
      }).on('error', (error) => response.writeHead(502).end(String(error)));
    });
  });
  listen(server);
} else if (role === 'library' && originUrl) {
  const [connections = '50', seconds = '10', config = ''] = rest;
  const periscope = createPeriscope(JSON.parse(readFileSync(config, 'utf8')));
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + Number(seconds) * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      const result = await periscope.fetch({ url: originUrl });
      if (result.isError) failures += 1;
      else latencies.push(performance.now() - started);
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: Number(connections) }, loop));
  const elapsed = (performance.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  process.stdout.write(
    `${JSON.stringify({ rps: latencies.length / elapsed, p50Ms: at(0.5), p99Ms: at(0.99), requests: latencies.length, failures })}\n`,
  );
  await periscope.close();
} else {
  process.stderr.write(
    'usage: gateway-peers.ts origin | proxy ORIGIN_URL | proxy-extract ORIGIN_URL | library PAGE_URL N SECONDS CONFIG\n',
  );
  process.exit(2);
}
