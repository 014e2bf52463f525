// The replay: a long recorded page (the readability corpus's Wikipedia article on Mozilla, 52 000
// characters extracted) whose answers sit far past the first window. With `query` each answer is returned within
// 2 000 characters; without, it is not. Needs ../shared/corpus, which only developers and CI have.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createPeriscope } from '../src/index.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { WebFetchData } from '../src/tools/web-fetch.ts';

const PAGE = new URL('../../shared/corpus/readability/wikipedia/source.html', import.meta.url).pathname;
const skip = existsSync(PAGE)
  ? false
  : 'the shared corpus (../shared/corpus/readability) is not beside this checkout';

/** Real questions about the page, each with the words that answer it and the section they are in. */
const QUESTIONS = [
  {
    query: 'How many active contributors does the Mozilla Community have?',
    answer: '40,000',
    section: 'Community',
  },
  { query: 'What language is SpiderMonkey written in?', answer: 'C++', section: 'SpiderMonkey' },
];

let server: TestServer;
before(async () => {
  server = await startTestServer({
    '/wiki/Mozilla': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readFileSync(PAGE)),
  });
});
after(() => server.close());

test('a long recorded page: with query the answer comes within 2 000 characters; without, it does not', {
  skip,
}, async () => {
  const periscope = createPeriscope({ network: { allowPrivateNetwork: ['127.0.0.1/32'] } });
  const url = `${server.url}/wiki/Mozilla`;
  const plain = (await periscope.fetch({ url, maxChars: 2000 })).data as WebFetchData;
  assert.ok(plain.totalLength > 40_000, `${plain.totalLength} characters`);
  for (const { query, answer, section } of QUESTIONS) {
    assert.ok(!plain.text.includes(answer), `the first window holds no answer to "${query}"`);
    const result = await periscope.fetch({ url, query, maxChars: 2000 });
    assert.equal(result.isError, false, result.output);
    const data = result.data as WebFetchData;
    assert.ok(data.text.length <= 2000);
    const found = data.passages?.find((passage) => passage.text.includes(answer));
    assert.ok(found, `"${answer}" is among the passages for "${query}": ${data.text}`);
    assert.ok(found.start > 2000, `the answer sits past the first window (${found.start})`);
    assert.equal(found.heading, section);
  }
});
