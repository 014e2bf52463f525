import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPeriscope } from '../index.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import type { WebFetchData } from './web-fetch.ts';

const ARTICLE = `<!doctype html><html lang="en"><head><title>Rivers of Europe</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/shop">Shop</a></nav>
<article><h1>Rivers of Europe</h1>
${Array.from({ length: 40 }, (_, index) => `<p>Paragraph ${index}: the Danube flows through ten countries, more than any other river in the world, and its basin drains a large part of central Europe.</p>`).join('\n')}
</article>
<footer>Copyright 2026 Example Corp. All rights reserved. Cookie settings.</footer>
</body></html>`;

let server: TestServer;
before(async () => {
  server = await startTestServer({
    '/article': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE),
    '/data.json': (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"name":"periscope","tags":["a","b"]}'),
    '/missing': (_request, response) =>
      response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'),
    '/busy': (_request, response) => response.writeHead(429, { 'retry-after': '7' }).end('slow down'),
    '/empty': (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('   '),
  });
});
after(() => server.close());

function openPeriscope(extra: Record<string, unknown> = {}) {
  return createPeriscope({ network: { allowPrivateNetwork: ['127.0.0.1/32'], ...extra } });
}

test('an HTML page becomes its main content in markdown, wrapped as untrusted, with data and display', async () => {
  const result = await openPeriscope().fetch({ url: `${server.url}/article` });
  assert.equal(result.isError, false, result.output);
  const data = result.data as WebFetchData;
  assert.equal(data.status, 200);
  assert.equal(data.contentType, 'text/html');
  assert.equal(data.title, 'Rivers of Europe');
  assert.equal(data.untrusted, true);
  assert.equal(data.backend, 'local');
  assert.equal(data.truncated, false);
  assert.match(data.text, /Paragraph 39: the Danube flows/);
  assert.doesNotMatch(data.text, /All rights reserved/);
  assert.match(
    result.output,
    /^<<<untrusted_web_content id="[0-9a-f]{12}" source="http:\/\/127\.0\.0\.1:\d+\/article">>>/,
  );
  assert.match(result.output, /Title: Rivers of Europe/);
  assert.match(
    result.display ?? '',
    /^fetch 127\.0\.0\.1:\d+\/article → 200 text\/html, \d+ chars in \d+ ms$/,
  );
});

test('maxChars windows and startIndex continuation read the whole document', async () => {
  const periscope = openPeriscope();
  const whole = (await periscope.fetch({ url: `${server.url}/article`, extractMode: 'text' }))
    .data as WebFetchData;
  const pieces: string[] = [];
  let startIndex = 0;
  for (let calls = 0; calls < 50; calls++) {
    const result = await periscope.fetch({
      url: `${server.url}/article`,
      extractMode: 'text',
      maxChars: 1000,
      startIndex,
    });
    const data = result.data as WebFetchData;
    assert.equal(result.isError, false);
    assert.equal(data.totalLength, whole.totalLength);
    pieces.push(data.text);
    if (!data.truncated) break;
    assert.match(result.output, new RegExp(`startIndex=${data.nextStartIndex}\\.\\]$`));
    startIndex = data.nextStartIndex as number;
  }
  assert.ok(pieces.length > 3);
  assert.equal(pieces.join(''), whole.text);
});

test('JSON is pretty-printed', async () => {
  const result = await openPeriscope().fetch({ url: `${server.url}/data.json` });
  const data = result.data as WebFetchData;
  assert.equal(data.extractor, 'json');
  assert.match(data.text, /\{\n {2}"name": "periscope",/);
});

test('error statuses are error results with the sentence for the model, never a throw', async () => {
  const periscope = openPeriscope();
  const missing = await periscope.fetch({ url: `${server.url}/missing` });
  assert.equal(missing.isError, true);
  assert.equal((missing.data as { error: { code: string } }).error.code, 'HTTP_STATUS');
  assert.match(missing.output, /failed with 404/);
  const busy = await periscope.fetch({ url: `${server.url}/busy` });
  const busyError = (busy.data as { error: { code: string; retryAfterMs: number } }).error;
  assert.equal(busyError.code, 'RATE_LIMITED');
  assert.equal(busyError.retryAfterMs, 7000);
  assert.match(busy.output, /Retry after about 7 s/);
  const empty = await periscope.fetch({ url: `${server.url}/empty` });
  assert.equal((empty.data as { error: { code: string } }).error.code, 'EMPTY_CONTENT');
});

test('loopback is refused by default, and the server never sees the request', async () => {
  const before = server.calls.length;
  const periscope = createPeriscope();
  for (const url of [
    `${server.url}/article`,
    `localhost:${server.port}/article`,
    `http://[::1]:${server.port}/`,
  ]) {
    const result = await periscope.fetch({ url });
    assert.equal(result.isError, true, url);
    assert.equal((result.data as { error: { code: string } }).error.code, 'URL_BLOCKED', url);
    assert.match(result.output, /private, local or non-web address/);
  }
  assert.equal(server.calls.length, before);
});

test('bad input is INVALID_INPUT naming the field; non-web schemes are blocked', async () => {
  const periscope = openPeriscope();
  const cases: Array<[unknown, string, RegExp]> = [
    [{}, 'INVALID_INPUT', /url/],
    [{ url: 'https://example.com', maxChars: 'many' }, 'INVALID_INPUT', /maxChars/],
    [{ url: 'https://example.com', startIndex: -1 }, 'INVALID_INPUT', /startIndex/],
    [{ url: 'http://exa mple.com/' }, 'INVALID_INPUT', /not a valid URL/],
    [{ url: 'file:///etc/passwd' }, 'URL_BLOCKED', /file:/],
    [{ url: 'javascript:alert(1)' }, 'URL_BLOCKED', /javascript:/],
  ];
  for (const [input, code, message] of cases) {
    const result = await periscope.tools[0]!.execute(input);
    const error = (result.data as { error: { code: string; message: string } }).error;
    assert.equal(error.code, code, JSON.stringify(input));
    assert.match(error.message, message, JSON.stringify(input));
  }
});

test('tools carry their JSON Schema, and a disabled tool is not offered', () => {
  const [tool] = openPeriscope().tools;
  assert.equal(tool?.name, 'web_fetch');
  const schema = tool?.jsonSchema as { properties: Record<string, unknown>; required?: string[] };
  assert.deepEqual(Object.keys(schema.properties).sort(), [
    'extractMode',
    'maxAgeSeconds',
    'maxChars',
    'query',
    'startIndex',
    'url',
    'urls',
  ]);
  // Exactly one of url and urls: neither is required by the JSON Schema, the tool says which is missing.
  assert.equal(schema.required, undefined);
  const withoutFetch = createPeriscope({ tools: { web_fetch: { enabled: false } } }).tools;
  assert.deepEqual(
    withoutFetch.map((item) => item.name),
    ['web_search', 'image_search'],
  );
});
