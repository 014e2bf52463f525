import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GatewayError } from '../http-io.ts';
import { SECURITY_HEADERS } from '../operator-console.ts';
import type { Call, GatewayServices } from '../route.ts';

const FOLDER = fileURLToPath(new URL('../console/', import.meta.url));
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The console page's sign-in hint (index.html's `periscope-sign-in` meta): `key` once the gateway asks for one. */
const OPEN_PAGE = '<meta name="periscope-sign-in" content="open">';
const KEY_PAGE = '<meta name="periscope-sign-in" content="key">';

/** The console's files by URL path, read once: every page, script and style sheet of the console folder. */
let files: Map<string, { body: Buffer; type: string }> | undefined;
/** The console page as served while the gateway asks for a key. */
let keyPage: { body: Buffer; type: string } | undefined;

function consoleFiles(): Map<string, { body: Buffer; type: string }> {
  if (files) return files;
  files = new Map();
  for (const entry of readdirSync(FOLDER, { withFileTypes: true, recursive: true })) {
    const type = TYPES[extname(entry.name)];
    if (!entry.isFile() || type === undefined) continue;
    const path = join(entry.parentPath, entry.name);
    const urlPath = `/console/${relative(FOLDER, path).split('\\').join('/')}`;
    files.set(urlPath, { body: readFileSync(path), type });
  }
  const page = files.get('/console/index.html');
  if (page) {
    files.set('/console', page).set('/console/', page);
    keyPage = { body: Buffer.from(page.body.toString('utf8').replace(OPEN_PAGE, KEY_PAGE)), type: page.type };
  }
  return files;
}

/**
 * The console page tells its script whether the gateway asks for a key, so that a console opened without one shows
 * the sign-in form at once: finding out by a request without a key would count as a failed authentication from the
 * operator's address (ten console tabs a minute would lock it out, and every agent behind the same proxy).
 */
async function pageFor(path: string, gateway: GatewayServices) {
  const file = consoleFiles().get(path);
  const isPage = file !== undefined && file === consoleFiles().get('/console/index.html');
  if (!isPage || !(await gateway.authenticator.keysRequired())) return file;
  return keyPage;
}

/** GET (or HEAD) /console and its files (no build step, no CDN), with the console's Content-Security-Policy. */
export async function consoleStatic(call: Call, gateway: GatewayServices): Promise<void> {
  const { request, response } = call;
  if (!gateway.console)
    throw new GatewayError(404, 'NOT_FOUND', 'the console is off (gateway.console.enabled)');
  const rest = call.params['*'];
  const path = rest === undefined ? '/console' : `/console/${rest}`;
  const file = await pageFor(path, gateway);
  if (!file) throw new GatewayError(404, 'NOT_FOUND', `no console file ${path.slice(0, 200)}`);
  response.writeHead(200, {
    'content-type': file.type,
    'content-length': String(file.body.length),
    'cache-control': 'no-cache',
    ...SECURITY_HEADERS,
  });
  response.end(request.method === 'HEAD' ? undefined : file.body);
}

/**
 * GET (or HEAD) /favicon.ico: the console's icon (an SVG), public and cacheable, so that a browser's own request for
 * it is neither a 404 in the log nor, were it routed behind a key, a failed authentication.
 */
export function favicon(call: Call): void {
  const { request, response } = call;
  const file = consoleFiles().get('/console/favicon.svg');
  if (!file) throw new GatewayError(404, 'NOT_FOUND', 'no favicon');
  response.writeHead(200, {
    'content-type': file.type,
    'content-length': String(file.body.length),
    'cache-control': 'public, max-age=86400',
    'x-content-type-options': 'nosniff',
  });
  response.end(request.method === 'HEAD' ? undefined : file.body);
}
