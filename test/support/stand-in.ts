// Local stand-ins for the surface tests: Brave (web and images), an article, a PNG and pages that never answer, on
// 127.0.0.1; and configs that point Periscope at them.
import { readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing/test-server.ts';

export const PNG = readFileSync(new URL('../../src/content/__fixtures__/image/sample.png', import.meta.url));

const ARTICLE = `<!doctype html><html><head><title>Tide tables of Brest</title></head><body>
<nav><a href="/">Home</a></nav>
<article><h1>Tide tables of Brest</h1>
<p>High tide in Brest is at 06:12 and again at 18:40 today. The tidal range reaches seven metres during spring tides,
which makes the harbour one of the most dramatic places on the Atlantic coast to watch the sea come in.</p>
<p>Low tide follows about six hours after each high tide. Walkers on the foreshore should check the times before
setting out, because the water returns faster than a person can walk across the flats.</p>
</article></body></html>`;

export interface StandIn {
  server: TestServer;
  url: string;
  /** A URL that never answers: `started` when the request arrives, `closed` when its connection goes away. */
  hang(): { url: string; started: Promise<void>; closed: Promise<void> };
  close(): Promise<void>;
}

function json(response: ServerResponse, body: unknown) {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Brave (web and images), an article, a PNG and hanging pages, on 127.0.0.1. */
export async function startStandIn(): Promise<StandIn> {
  const hangs = new Map<string, { started: () => void; closed: () => void }>();
  let hangCount = 0;
  const server = await startTestServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    if (url.pathname === '/brave/res/v1/web/search') {
      const query = url.searchParams.get('q') ?? '';
      return json(response, {
        web: {
          results: [
            { title: `About ${query}`, url: 'https://tides.example/brest', description: 'High tide 06:12' },
          ],
        },
      });
    }
    if (url.pathname === '/brave/res/v1/images/search') {
      return json(response, {
        results: [
          {
            title: 'Brest harbour',
            url: 'https://photos.example/brest',
            properties: { url: 'https://photos.example/brest.jpg', width: 800, height: 600 },
            thumbnail: { src: 'https://photos.example/brest-small.jpg' },
          },
        ],
      });
    }
    if (url.pathname.startsWith('/article')) {
      return response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    }
    if (url.pathname.startsWith('/image.png')) {
      return response.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    }
    const hang = hangs.get(url.pathname);
    if (hang) {
      response.on('close', hang.closed);
      hang.started();
      return new Promise(() => {});
    }
    response.writeHead(404).end('not found');
  });
  return {
    server,
    url: server.url,
    hang() {
      hangCount += 1;
      const path = `/hang/${hangCount}`;
      let started = () => {};
      let closed = () => {};
      const startedPromise = new Promise<void>((resolve) => {
        started = resolve;
      });
      const closedPromise = new Promise<void>((resolve) => {
        closed = resolve;
      });
      hangs.set(path, { started, closed });
      return { url: `${server.url}${path}`, started: startedPromise, closed: closedPromise };
    },
    close: () => server.close(),
  };
}

/** A config file pointing Brave and web_fetch at the stand-in. */
export function writeConfig(folder: string, standIn: StandIn, extra: Record<string, unknown> = {}): string {
  const path = join(folder, `periscope-${Math.random().toString(36).slice(2)}.config.json`);
  writeFileSync(path, JSON.stringify(configFor(standIn, extra)));
  return path;
}

export function configFor(standIn: StandIn, extra: Record<string, unknown> = {}) {
  return {
    network: { allowPrivateNetwork: ['127.0.0.1/32'], timeoutMs: 10_000 },
    search: { chain: ['brave'], timeoutMs: 5000 },
    providers: { brave: { baseUrl: `${standIn.url}/brave`, apiKey: 'stand-in-key', minIntervalMs: 0 } },
    store: { url: 'memory:' },
    ...extra,
  };
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
