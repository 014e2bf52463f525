// Long documents through web_fetch: the token budget, continuation from the in-process document cache,
// the outline and the "read on" hint, metadata in data, and CJK text cut without broken characters.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { estimateTokens } from '../src/content/token-estimate.ts';
import { createPeriscope } from '../src/index.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { WebFetchData } from '../src/tools/web-fetch.ts';

const SECTIONS = 60;
const sentence = (section: number, index: number) =>
  `Section ${section} sentence ${index}: the harbour records list every ship that docked in the year.`;
// About 2 MB of HTML: 60 sections × 40 paragraphs × 10 sentences.
const LONG_ARTICLE = `<!doctype html><html lang="en-GB"><head><title>Harbour records</title>
<meta name="author" content="Ada Example"><meta property="article:published_time" content="2026-03-01T08:00:00Z">
<meta property="og:site_name" content="The Harbour Gazette"></head><body><article><h1>Harbour records</h1>
${Array.from(
  { length: SECTIONS },
  (_, section) =>
    `<h2>Year ${1900 + section}</h2>${Array.from(
      { length: 40 },
      (_, index) => `<p>${Array.from({ length: 10 }, () => sentence(section, index)).join(' ')}</p>`,
    ).join('\n')}`,
).join('\n')}</article></body></html>`;

const CJK = `<!doctype html><html lang="zh"><head><title>长文</title></head><body><article><h1>长文</h1>${Array.from(
  { length: 800 },
  (_, index) => `<p>第${index}段：这是一个很长的中文段落，用来测试按令牌预算截断时不会把字符切坏。😀</p>`,
).join('')}</article></body></html>`;

let server: TestServer;
before(async () => {
  server = await startTestServer({
    '/long': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(LONG_ARTICLE),
    '/cjk': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(CJK),
  });
});
after(() => server.close());

const open = () => createPeriscope({ network: { allowPrivateNetwork: ['127.0.0.1/32'] } });

test('a 2 MB article is read end to end by continuation, and the origin is asked once', async () => {
  assert.ok(LONG_ARTICLE.length > 2_000_000, `fixture is ${LONG_ARTICLE.length} bytes`);
  const periscope = open();
  const before = server.calls.length;
  const windows: WebFetchData[] = [];
  let startIndex = 0;
  for (let guard = 0; guard < 200; guard++) {
    const result = await periscope.fetch({ url: `${server.url}/long`, startIndex });
    assert.equal(result.isError, false, result.output);
    const data = result.data as WebFetchData;
    windows.push(data);
    assert.equal(data.cached, startIndex > 0);
    assert.ok(data.length <= 50_000);
    if (!data.truncated) break;
    assert.match(result.output, new RegExp(`startIndex=${data.nextStartIndex}\\.`));
    startIndex = data.nextStartIndex as number;
  }
  const downloads = server.calls.slice(before).filter((call) => call.url.pathname === '/long');
  assert.equal(downloads.length, 1, 'one download for every window (robots.txt aside)');
  const whole = windows.map((window) => window.text).join('');
  assert.equal(whole.length, windows[0]!.totalLength);
  // The same text as one read of the whole document, character for character.
  const full = await createPeriscope({
    network: { allowPrivateNetwork: ['127.0.0.1/32'] },
    fetch: { maxChars: 10_000_000, maxTokens: 100_000_000 },
  }).fetch({ url: `${server.url}/long` });
  const fullData = full.data as WebFetchData;
  assert.equal(fullData.truncated, false);
  assert.ok(whole === fullData.text, 'the joined windows equal a single full read');
  for (let section = 0; section < SECTIONS; section++) {
    assert.ok(whole.includes(`## Year ${1900 + section}`), `section ${section} heading`);
    assert.ok(whole.includes(sentence(section, 39)), `section ${section} last paragraph`);
  }
  assert.ok(windows.length > 30, `${windows.length} windows`);
});

test('the outline gives every heading with an offset that starts it, and the hint names the next ones', async () => {
  const result = await open().fetch({ url: `${server.url}/long` });
  const data = result.data as WebFetchData;
  assert.ok(data.outline, 'outline present for a long document');
  // The headline, then every <h2>, in order.
  assert.deepEqual(
    data.outline.map((entry) => entry.title),
    ['Harbour records', ...Array.from({ length: SECTIONS }, (_, section) => `Year ${1900 + section}`)],
  );
  const target = data.outline.find((entry) => entry.title === 'Year 1904')!;
  const second = await open().fetch({ url: `${server.url}/long`, startIndex: target.offset });
  assert.ok((second.data as WebFetchData).text.startsWith('## Year 1904'));
  const next = data.outline.find((entry) => entry.offset >= (data.nextStartIndex as number))!;
  assert.match(
    result.output,
    new RegExp(`Sections after this point: "${next.title}" \\(startIndex=${next.offset}\\)`),
  );
});

test('metadata the page declares is in data and inside the untrusted envelope', async () => {
  const result = await open().fetch({ url: `${server.url}/long`, maxChars: 1000 });
  const data = result.data as WebFetchData;
  assert.equal(data.title, 'Harbour records');
  assert.equal(data.byline, 'Ada Example');
  assert.equal(data.publishedAt, '2026-03-01T08:00:00Z');
  assert.equal(data.siteName, 'The Harbour Gazette');
  assert.equal(data.language, 'en-GB');
  const envelopeEnd = result.output.indexOf('<<<end_untrusted_web_content');
  for (const line of ['Title: Harbour records', 'By: Ada Example', 'Site: The Harbour Gazette']) {
    const at = result.output.indexOf(line);
    assert.ok(at > 0 && at < envelopeEnd, `${line} inside the envelope`);
  }
});

test('CJK text is cut by the token budget, never inside a character', async () => {
  const periscope = open();
  const result = await periscope.fetch({ url: `${server.url}/cjk`, extractMode: 'text' });
  const data = result.data as WebFetchData;
  assert.equal(data.truncated, true);
  // The default budget (20 000 estimated tokens) binds before the 50 000-character limit for CJK text.
  const tokens = estimateTokens(data.text);
  assert.ok(tokens <= 20_000 && tokens > 19_000, `window of ${data.length} chars, ~${tokens} tokens`);
  assert.ok(data.length < 50_000);
  // Counted by real tokenizers, the window is within the budget and the whole output under 25 000 tokens.
  for (const ranks of [o200k, cl100k]) {
    const tokenizer = new Tiktoken(ranks);
    assert.ok(tokenizer.encode(data.text).length <= 20_000);
    assert.ok(tokenizer.encode(result.output).length < 25_000);
  }
  assert.ok(!/[\ud800-\udbff]$/.test(data.text));
  const rest = await periscope.fetch({
    url: `${server.url}/cjk`,
    extractMode: 'text',
    startIndex: data.nextStartIndex,
  });
  const restData = rest.data as WebFetchData;
  assert.ok(!/^[\udc00-\udfff]/.test(restData.text));
  assert.equal(restData.cached, true);
});

test('continuation after the cache expired downloads again (startIndex still honoured)', async () => {
  const periscope = createPeriscope({
    network: { allowPrivateNetwork: ['127.0.0.1/32'] },
    fetch: { continuationTtlMs: 1 },
  });
  const first = await periscope.fetch({ url: `${server.url}/long`, maxChars: 5000 });
  await new Promise((resolve) => setTimeout(resolve, 10));
  const before = server.calls.length;
  const second = await periscope.fetch({
    url: `${server.url}/long`,
    maxChars: 5000,
    startIndex: (first.data as WebFetchData).nextStartIndex,
  });
  assert.equal(server.calls.length - before, 1);
  assert.equal((second.data as WebFetchData).cached, false);
  assert.equal((second.data as WebFetchData).startIndex, (first.data as WebFetchData).nextStartIndex);
});
