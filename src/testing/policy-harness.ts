import { setTimeout as sleep } from 'node:timers/promises';
import type { PeriscopeConfigInput } from '../config/schema.ts';
import { type CreatePeriscopeOptions, createPeriscope, type Periscope, type ToolResult } from '../index.ts';
import { createStandInSearchProvider, startSearchStandIn } from './search-stand-in.ts';
import { startTestServer, type TestServer } from './test-server.ts';

/** What the policy tests run against: a search stand-in, an origin with a few pages, and a way to open Periscope. */
export interface PolicyHarness {
  searchServer: TestServer;
  pages: TestServer;
  /** A Periscope whose chain is the stand-in, with 127.0.0.1 opened for fetches; `config` is merged in. */
  open(config?: PeriscopeConfigInput, options?: CreatePeriscopeOptions): Periscope;
  /** Requests the search stand-in has had (web and images). */
  searches(): number;
  /** Requests the origin has had for `path`. */
  downloads(path: string): number;
  close(): Promise<void>;
}

const PARAGRAPH =
  'The harbour master kept a ledger of every ship that came in, with its cargo, its flag and the tide it rode. ';

/** About 30 000 characters in 300 numbered lines. */
export const LONG_TEXT = Array.from({ length: 300 }, (_, index) => `${index + 1}. ${PARAGRAPH.trim()}`).join(
  '\n',
);

const ARTICLE = `<!doctype html><html><head><title>Harbour</title></head><body><article><h1>Harbour</h1>
<p>${PARAGRAPH.repeat(4)}</p><p>${PARAGRAPH.repeat(3)}</p></article></body></html>`;

export async function startPolicyHarness(): Promise<PolicyHarness> {
  const searchServer = await startSearchStandIn();
  const pages = await startTestServer({
    '/article': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE),
    '/long': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(LONG_TEXT),
    '/slow': async (_request, response) => {
      await sleep(150);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    },
    '/missing': (_request, response) => response.writeHead(404, { 'content-type': 'text/plain' }).end('no'),
    '/broken': (_request, response) => response.writeHead(503, { 'content-type': 'text/plain' }).end('down'),
    '/empty': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body></body></html>'),
  });
  return {
    searchServer,
    pages,
    open(config = {}, options = {}) {
      const { search, network, ...rest } = config;
      return createPeriscope(
        {
          search: { chain: ['stand-in'], ...search },
          network: { allowPrivateNetwork: ['127.0.0.1/32'], ...network },
          ...rest,
        },
        { env: {}, providers: [createStandInSearchProvider(searchServer.url)], ...options },
      );
    },
    searches: () => searchServer.calls.length,
    downloads: (path) => pages.calls.filter((call) => call.url.pathname === path).length,
    async close() {
      await Promise.all([searchServer.close(), pages.close()]);
    },
  };
}

/** The error code of a result, or `ok`. */
export function outcome(result: ToolResult): string {
  if (!result.isError) return 'ok';
  return (result.data as { error: { code: string } }).error.code;
}

/** The error data of a failed result. */
export function errorOf(result: ToolResult): {
  code: string;
  message: string;
  retryAfterMs?: number;
  details?: Record<string, unknown>;
} {
  if (!result.isError) throw new Error(`expected an error, got: ${result.display}`);
  return (result.data as { error: ReturnType<typeof errorOf> }).error;
}
