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
};

/** The console's files by URL path, read once: every page, script and style sheet of the console folder. */
let files: Map<string, { body: Buffer; type: string }> | undefined;

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
  if (page) files.set('/console', page).set('/console/', page);
  return files;
}

/** GET (or HEAD) /console and its files (no build step, no CDN), with the console's Content-Security-Policy. */
export function consoleStatic(call: Call, gateway: GatewayServices): void {
  const { request, response } = call;
  if (!gateway.console)
    throw new GatewayError(404, 'NOT_FOUND', 'the console is off (gateway.console.enabled)');
  const rest = call.params['*'];
  const path = rest === undefined ? '/console' : `/console/${rest}`;
  const file = consoleFiles().get(path);
  if (!file) throw new GatewayError(404, 'NOT_FOUND', `no console file ${path.slice(0, 200)}`);
  response.writeHead(200, {
    'content-type': file.type,
    'content-length': String(file.body.length),
    'cache-control': 'no-cache',
    ...SECURITY_HEADERS,
  });
  response.end(request.method === 'HEAD' ? undefined : file.body);
}
