// web_fetch with `query`: the passages that answer it, with offsets, headings and citations, in the envelope;
// the document read once for many questions (in-process and store caches); the refusals and the no-match case.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { contentHash } from '../content/passages/content-hash.ts';
import { PASSAGE_SEPARATOR } from '../content/passages/types.ts';
import type { ToolErrorData } from '../errors.ts';
import { createPeriscope } from '../index.ts';
import { openStore } from '../store/open-store.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { NO_MATCH_NOTE } from './fetch-output.ts';
import type { WebFetchData } from './web-fetch.ts';

const filler = (topic: string, count: number) =>
  Array.from(
    { length: count },
    (_, index) =>
      `<p>${topic} note ${index}: coastal beacons appear in regional archive ledgers, catalogued by volunteers every season.</p>`,
  ).join('\n');

const ANSWER =
  'The Helgoland tower was completed in 1952 by the engineer Clara Vogt, using reinforced concrete.';
const PAGE = `<!doctype html><html lang="en"><head><title>Lighthouses of the North Sea</title></head><body>
<article><h1>Lighthouses of the North Sea</h1>
<h2>Overview</h2>${filler('Overview', 25)}
<h2>Construction</h2>${filler('Construction', 5)}<p>${ANSWER}</p>${filler('Materials', 5)}
<h2>Keepers</h2>${filler('Keepers', 25)}
</article></body></html>`;

let server: TestServer;
before(async () => {
  server = await startTestServer({
    '/lighthouses': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
  });
});
after(() => server.close());

const URL_PATH = '/lighthouses';
const open = (extra: Record<string, unknown> = {}) =>
  createPeriscope({ network: { allowPrivateNetwork: ['127.0.0.1/32'] }, ...extra });
const downloads = () => server.calls.filter((call) => call.url.pathname === URL_PATH).length;
const QUESTION = 'Who built the Helgoland tower, and when was it completed?';

test('query: the passages that answer it, verbatim at their offsets, under their headings, with citations', async () => {
  const periscope = open();
  const url = `${server.url}${URL_PATH}`;
  const whole = (await periscope.fetch({ url, maxChars: 1_000_000 })).data as WebFetchData;
  const result = await periscope.fetch({ url, query: QUESTION, maxChars: 1500 });
  assert.equal(result.isError, false, result.output);
  const data = result.data as WebFetchData;
  assert.equal(data.query, QUESTION);
  const passages = data.passages ?? [];
  assert.ok(passages.length > 0);
  const answer = passages.find((passage) => passage.text.includes('Clara Vogt'));
  assert.ok(answer, 'the answer is among the passages');
  assert.ok(answer.start > 2000, `the answer sits past the first window (${answer.start})`);
  assert.equal(answer.heading, 'Construction');
  for (const passage of passages) {
    assert.equal(whole.text.slice(passage.start, passage.end), passage.text);
    assert.deepEqual(passage.citation, {
      url,
      finalUrl: url,
      start: passage.start,
      end: passage.end,
      quote: passage.text,
      contentHash: contentHash(whole.text),
      retrievedAt: data.retrievedAt,
    });
  }
  assert.match(data.retrievedAt ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  assert.equal(data.contentHash, contentHash(whole.text));
  assert.equal(data.text, passages.map((passage) => passage.text).join(PASSAGE_SEPARATOR));
  assert.ok(data.text.length <= 1500);
  assert.equal(data.length, data.text.length);
  assert.equal(data.totalLength, whole.text.length);
  assert.equal(
    data.coveredChars,
    passages.reduce((sum, passage) => sum + passage.end - passage.start, 0),
  );
  assert.equal(data.truncated, true);
  assert.equal(data.startIndex, 0);
  assert.equal(data.nextStartIndex, undefined);
  assert.ok((data.outline ?? []).some((entry) => entry.title === 'Keepers'));
  // Page-written words (headings, passages) inside the envelope; around it only our sentences: the document came
  // from the cache (the read above), then the numbers.
  assert.equal(data.cached, true);
  const end = result.output.indexOf('<<<end_untrusted_web_content');
  assert.match(
    result.output,
    /^\[From cache, [^\]]+ old; set maxAgeSeconds to 0 for a live answer\.\]\n<<<untrusted_web_content id="[0-9a-f]{12}"/,
  );
  const inside = result.output.slice(0, end);
  assert.ok(inside.includes(`[chars ${answer.start}–${answer.end}] under "Construction"\n${answer.text}`));
  const after = result.output.slice(end);
  assert.doesNotMatch(after, /Construction|Helgoland|Clara/);
  assert.match(
    after,
    new RegExp(
      `\\n\\[${passages.length} passages? for the query: ${data.length} of ${data.totalLength} characters; the rest of the page was left out\\. To read any part in full, call web_fetch with the same url, without query, and startIndex set to where to begin \\(startIndex=${answer.start} reads on from the best-matching passage\\)\\.\\]$`,
    ),
  );
  assert.match(
    result.display ?? '',
    /→ from cache \(\d+ s old\), \d+ passages? \(\d+ of \d+ chars\) in \d+ ms$/,
  );
});

test('two questions of the same page: one download, the second from the document cache, same retrievedAt', async () => {
  const periscope = open({ cache: { enabled: false } });
  const url = `${server.url}${URL_PATH}`;
  const before = downloads();
  const first = (await periscope.fetch({ url, query: QUESTION, maxChars: 1500 })).data as WebFetchData;
  const second = (await periscope.fetch({ url, query: 'What do the keepers catalogue?', maxChars: 1500 }))
    .data as WebFetchData;
  assert.equal(downloads() - before, 1, 'the origin saw one request');
  assert.equal(first.cached, false);
  assert.equal(second.cached, true);
  assert.equal(second.retrievedAt, first.retrievedAt);
  assert.ok(second.passages?.some((passage) => passage.heading === 'Keepers'));
  // Reading on in order from a passage also comes from the same document.
  const from = first.passages?.find((passage) => passage.start > 0)?.start ?? 1;
  const onward = (await periscope.fetch({ url, startIndex: from })).data;
  assert.equal((onward as WebFetchData).cached, true);
  assert.equal(downloads() - before, 1);
});

test('the store keeps the document, not a result: plain and focused reads share it, each answers its own way', async () => {
  const store = await openStore('memory:');
  const url = `${server.url}${URL_PATH}`;
  const before = downloads();
  // Two instances share only the store, so the reader cannot use the writer's in-process document cache.
  const reader = createPeriscope({ network: { allowPrivateNetwork: ['127.0.0.1/32'] } }, { store });
  const writer = createPeriscope({ network: { allowPrivateNetwork: ['127.0.0.1/32'] } }, { store });
  const first = (await writer.fetch({ url, query: QUESTION, maxChars: 1500 })).data as WebFetchData;
  const plain = (await reader.fetch({ url, maxChars: 1500 })).data as WebFetchData;
  const again = (await reader.fetch({ url, query: 'What do the keepers catalogue?', maxChars: 1500 }))
    .data as WebFetchData;
  assert.equal(downloads() - before, 1, 'one download for both instances and all three reads');
  assert.equal(first.cached, false);
  assert.equal(plain.cached, true);
  assert.equal(plain.passages, undefined, 'a plain read is not answered with passages');
  assert.match(plain.text, /^# Lighthouses of the North Sea/);
  assert.equal(again.cached, true);
  assert.notDeepEqual(again.passages, first.passages, 'another question, its own passages');
  assert.equal(again.retrievedAt, first.retrievedAt, 'a cached document keeps the time it was fetched');
  await store.close();
});

test('startIndex with query is INVALID_INPUT naming the fix; startIndex 0 is the default and accepted', async () => {
  const periscope = open();
  const url = `${server.url}${URL_PATH}`;
  const refused = await periscope.fetch({ url, query: QUESTION, startIndex: 500 });
  assert.equal(refused.isError, true);
  const { error } = refused.data as { error: ToolErrorData };
  assert.equal(error.code, 'INVALID_INPUT');
  assert.equal(error.details?.field, 'startIndex');
  assert.deepEqual(error.details?.constraint, { kind: 'excludes', with: 'query' });
  assert.match(error.message, /startIndex: cannot be combined with query.*call again without query/);
  const accepted = await periscope.fetch({ url, query: QUESTION, startIndex: 0, maxChars: 1500 });
  assert.equal(accepted.isError, false, accepted.output);
  const empty = await periscope.fetch({ url, query: '   ' });
  assert.equal((empty.data as { error: { code: string } }).error.code, 'INVALID_INPUT');
});

test('a query no passage matches says so and returns the opening sentences as passages, with exact offsets', async () => {
  const periscope = open();
  const url = `${server.url}${URL_PATH}`;
  const whole = (await periscope.fetch({ url, maxChars: 1_000_000 })).data as WebFetchData;
  const result = await periscope.fetch({ url, query: 'xylophone quasar', maxChars: 1000 });
  assert.equal(result.isError, false, result.output);
  const data = result.data as WebFetchData;
  assert.equal(data.query, 'xylophone quasar');
  assert.equal(data.queryMatched, false);
  const passages = data.passages ?? [];
  assert.ok(passages.length > 0, 'something to cite');
  assert.match(passages[0]!.text, /^Overview note 0: coastal beacons/);
  assert.equal(passages[0]!.heading, 'Overview');
  for (const passage of passages) {
    assert.equal(passage.score, 0);
    assert.equal(whole.text.slice(passage.start, passage.end), passage.text);
    assert.equal(passage.citation.quote, passage.text);
    assert.equal(passage.citation.contentHash, contentHash(whole.text));
  }
  assert.equal(data.text, passages.map((passage) => passage.text).join(PASSAGE_SEPARATOR));
  assert.ok(data.text.length <= 1000);
  assert.equal(data.truncated, true);
  assert.ok(result.output.includes(`${NO_MATCH_NOTE}\n<<<untrusted_web_content`), result.output);
  const end = passages.at(-1)!.end;
  assert.match(
    result.output,
    new RegExp(
      `\\n\\[${passages.length} opening passages?, none matching the query: ${data.length} of ${data.totalLength} characters\\. To read on, call web_fetch with the same url, without query, and startIndex=${end}\\.\\]$`,
    ),
  );
  assert.doesNotMatch(result.output, /best-matching/);
  const matched = (await periscope.fetch({ url, query: QUESTION, maxChars: 1500 })).data as WebFetchData;
  assert.equal(matched.queryMatched, true);
});

test('repeat throttle: another question of the same page is another lookup; the same one thrice is not', async () => {
  const periscope = open();
  const url = `${server.url}${URL_PATH}`;
  const session = { sessionId: 'questions' };
  for (const query of ['Who built the tower?', 'What do keepers do?', 'Where are the beacons?']) {
    const result = await periscope.fetch({ url, query }, session);
    assert.equal(result.isError, false, `${query}: ${result.output}`);
  }
  await periscope.fetch({ url, query: 'Who built the tower?' }, session);
  const third = await periscope.fetch({ url, query: 'who built  the TOWER?' }, session);
  assert.equal((third.data as { error: { code: string } }).error.code, 'REPEATED_LOOKUP');
});
