// The route table as the gateway serves it: every route it declares is served and documented (or says why not),
// nothing is served that it does not declare, and the steps it declares are what /openapi.json says.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createPeriscope, type Periscope } from '../../index.ts';
import { createApiKey } from '../../keys/api-keys.ts';
import { createMemoryStore } from '../../store/memory-store.ts';
import type { Store } from '../../store/store.ts';
import { httpCall } from '../../testing/http-call.ts';
import { createGateway, type Gateway } from './gateway.ts';
import { mountMcp } from './mount-mcp.ts';
import { routeTable } from './routes.ts';

interface Operation {
  operationId: string;
  security: unknown[];
  parameters?: Array<{ name: string; in: string }>;
  responses: Record<string, unknown>;
  'x-periscope-access'?: string;
}
type Document = { paths: Record<string, Record<string, Operation>> };

let store: Store;
let periscope: Periscope;
let gateway: Gateway;
let url = '';
let admin = '';
let document: Document;
before(async () => {
  store = createMemoryStore();
  admin = (await createApiKey(store, { agent: 'ops', admin: true })).key;
  periscope = createPeriscope({ gateway: { port: 0 } }, { store });
  gateway = createGateway({ periscope, mcp: mountMcp, version: '0.0.0-test' });
  url = (await gateway.listen()).url;
  document = (await httpCall(`${url}/openapi.json`)).json as Document;
});
after(async () => {
  await gateway.close();
  await periscope.close();
  await store.close();
});

test('every route of the table is documented in /openapi.json, or says why not; nothing else is', () => {
  const documented = new Set<string>();
  for (const route of routeTable(periscope.tools)) {
    if ('undocumented' in route.doc) {
      assert.ok(route.doc.undocumented.length > 10, `${route.path} says why it is left out`);
      continue;
    }
    const path = route.path.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{path}');
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      assert.ok(document.paths[path]?.[method.toLowerCase()], `${method} ${path} is in /openapi.json`);
      documented.add(`${method.toLowerCase()} ${path}`);
    }
  }
  const inDocument = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method} ${path}`),
  );
  assert.deepEqual(inDocument.sort(), [...documented].sort());
  const ids = inDocument.map((entry) => {
    const [method, path] = entry.split(' ') as [string, string];
    return document.paths[path]?.[method]?.operationId;
  });
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

test('every documented operation is served: none answers the router’s own 404 or 405', async () => {
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const method of Object.keys(methods)) {
      if (path === '/v1/admin/console/events' || (path === '/mcp' && method === 'get')) continue; // open streams
      const concrete = path.replace('{keyId}', 'ffffffffffff').replace(/\{\w+\}/g, 'index.html');
      const answer = await httpCall(`${url}${concrete}`, {
        method: method.toUpperCase(),
        headers: {
          authorization: `Bearer ${admin}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        ...(['post', 'patch'].includes(method) ? { body: '{}' } : {}),
      });
      const message = (answer.json as { error?: { message?: string } } | undefined)?.error?.message ?? '';
      assert.doesNotMatch(message, /^no route /, `${method} ${concrete}: ${answer.status} ${message}`);
      assert.notEqual(answer.status, 405, `${method} ${concrete}`);
    }
  }
});

test('what the steps declare is documented: security by access, headers, path parameters, the gateway’s errors', () => {
  const createKey = document.paths['/v1/admin/keys']?.post as Operation;
  assert.deepEqual(createKey.security, [{ bearer: [] }]);
  assert.equal(createKey['x-periscope-access'], 'an admin key');
  for (const status of ['400', '401', '403', '413', '415', '429', '431', '503']) {
    assert.ok(createKey.responses[status], `POST /v1/admin/keys documents ${status}`);
  }
  assert.deepEqual(document.paths['/healthz']?.get?.security, [], '/healthz needs no key');
  const fetchTool = document.paths['/v1/tools/web_fetch']?.post as Operation;
  assert.deepEqual(
    fetchTool.parameters?.map((parameter) => `${parameter.in} ${parameter.name}`),
    ['header Periscope-Session', 'header Periscope-Task-Urls', 'header Periscope-Return'],
  );
  const ledger = document.paths['/v1/admin/credits/{agent}']?.get as Operation;
  assert.deepEqual(
    ledger.parameters?.map((parameter) => `${parameter.in} ${parameter.name}`),
    ['path agent'],
  );
  assert.ok(document.paths['/v1/admin/console/as/{keyId}/tools/web_fetch']?.post, 'the playground, per tool');
});

test('a path served for other methods answers 405 with every method it has; an unknown path 404', async () => {
  const keys = await httpCall(`${url}/v1/admin/keys`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${admin}` },
  });
  assert.equal(keys.status, 405);
  assert.equal(keys.headers.allow, 'GET, POST');
  const key = await httpCall(`${url}/v1/admin/keys/abc`, {
    method: 'GET',
    headers: { authorization: `Bearer ${admin}` },
  });
  assert.equal(key.headers.allow, 'PATCH, DELETE');
  const head = await httpCall(`${url}/console/console.css`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  const unknown = await httpCall(`${url}/v2/tools`);
  assert.equal(unknown.status, 404);
  assert.match(
    (unknown.json as { error: { message: string } }).error.message,
    /^no route GET \/v2\/tools; see \/openapi\.json$/,
  );
});

test('routes are declared only in the route table: no other gateway file matches a request path', () => {
  const folder = new URL('./', import.meta.url);
  const files = readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter(
    (name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && name !== 'routes.ts',
  );
  assert.ok(files.length > 20, `the scan reads the gateway's files (${files.length})`);
  for (const name of files) {
    const code = readFileSync(new URL(name, folder), 'utf8');
    assert.doesNotMatch(
      code,
      /\bpath\s*===\s*'\/|path\.startsWith\('\/|\.exec\(path\)|\bon\('(GET|POST)'/,
      name,
    );
  }
});
