// `periscope fetch URL URL…`, spawned as a user runs it: one section per URL, in order, one failure kept apart.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { WebFetchManyData } from '../src/tools/web-fetch-schema.ts';
import { runCli } from './support/run-cli.ts';

let server: TestServer;
let folder: string;
before(async () => {
  server = await startTestServer({
    '/tides': (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
        .end('High tide at Brest is at 06:12.'),
    '/ships': (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Ships dock at the east quay.'),
    '/gone': (_request, response) => response.writeHead(404, { 'content-type': 'text/plain' }).end('no'),
  });
  folder = mkdtempSync(join(tmpdir(), 'periscope-cli-fetch-urls-'));
  writeFileSync(
    join(folder, 'periscope.config.json'),
    JSON.stringify({ network: { allowPrivateNetwork: ['127.0.0.1/32'] } }),
  );
});
after(async () => {
  await server.close();
  rmSync(folder, { recursive: true, force: true });
});

test('periscope fetch URL URL URL prints one section per URL in order; a 404 fails alone', async () => {
  const urls = [`${server.url}/tides`, `${server.url}/gone`, `${server.url}/ships`];
  const run = await runCli(['fetch', ...urls], { cwd: folder });
  assert.equal(run.code, 0, run.stderr);
  const tides = run.stdout.indexOf(`## 1/3 ${urls[0]} (200 text/plain)`);
  const gone = run.stdout.indexOf(`## 2/3 ${urls[1]} (failed: HTTP_STATUS)`);
  const ships = run.stdout.indexOf(`## 3/3 ${urls[2]} (200 text/plain)`);
  assert.ok(tides >= 0 && gone > tides && ships > gone, run.stdout);
  assert.match(run.stdout, /High tide at Brest/);
  assert.match(run.stdout, /Ships dock at the east quay/);
});

test('periscope fetch URL URL --json --query gives data.results with passages', async () => {
  const urls = [`${server.url}/tides`, `${server.url}/ships`];
  const run = await runCli(['fetch', ...urls, '--query', 'high tide Brest', '--json'], { cwd: folder });
  assert.equal(run.code, 0, run.stderr);
  const data = JSON.parse(run.stdout).data as WebFetchManyData;
  assert.deepEqual(data.urls, urls);
  assert.deepEqual(
    data.results.map((item) => item.ok),
    [true, true],
  );
  const [tides] = data.results;
  assert.ok(tides?.ok);
  assert.equal(tides.query, 'high tide Brest');
  assert.match(tides.passages?.[0]?.text ?? '', /High tide at Brest/);
});
