// Pages of the readability corpus served by a local server and read through web_fetch (the whole local path:
// guarded client → decoding → extraction). Needs ../shared/corpus, which only developers and CI have.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseHTML } from 'linkedom';
import { compareShingles } from '../bench/extract-corpus.ts';
import { hiddenReason } from '../src/content/html/hidden-element.ts';
import { createPeriscope } from '../src/index.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { WebFetchData } from '../src/tools/web-fetch.ts';

const CORPUS = new URL('../../shared/corpus/readability/', import.meta.url).pathname;
const SAMPLE = [
  '001',
  'ars-1',
  'bbc-1',
  'guardian-1',
  'medium-1',
  'nytimes-1',
  'wikipedia',
  'wapo-1',
  'mozilla-1',
  'lemonde-1',
];
const skip = existsSync(CORPUS)
  ? false
  : 'the shared corpus (../shared/corpus/readability) is not beside this checkout';

const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();
const textOf = (html: string) =>
  normalise(parseHTML(`<!doctype html><html><body>${html}</body></html>`).document.body.textContent ?? '');

let server: TestServer;
before(async () => {
  server = await startTestServer((request, response) => {
    const name = decodeURIComponent((request.url ?? '/').slice(1));
    const path = join(CORPUS, name, 'source.html');
    if (!SAMPLE.includes(name) || !existsSync(path)) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readFileSync(path));
  });
});
after(() => server?.close());

test('corpus pages: the article is there, the page chrome is not', { skip }, async () => {
  const periscope = createPeriscope({
    network: { allowPrivateNetwork: ['127.0.0.1/32'] },
    fetch: { maxChars: 1_000_000, maxTokens: 1_000_000 },
  });
  let checked = 0;
  for (const name of SAMPLE) {
    if (!existsSync(join(CORPUS, name))) continue;
    const result = await periscope.fetch({ url: `${server.url}/${name}`, extractMode: 'text' });
    assert.equal(result.isError, false, `${name}: ${result.output}`);
    // Text mode keeps list bullets and numbers; the expected HTML's text has none.
    const got = normalise((result.data as WebFetchData).text.replace(/^[ \t]*(?:[-*•]|\d+\.)[ \t]+/gm, ''));
    const { document } = parseHTML(readFileSync(join(CORPUS, name, 'source.html'), 'utf8'));
    // Readability keeps screen-reader-only labels ("Photo"); Periscope drops hidden text on purpose.
    const expected = withoutHiddenText(
      textOf(readFileSync(join(CORPUS, name, 'expected.html'), 'utf8')),
      document,
    );
    // The article is there: most of Readability's word shingles (extractors legitimately differ at the
    // edges: kickers, captions, "read also" and "continue reading" lines).
    const { tp, fn } = compareShingles(got, expected);
    assert.ok(tp / (tp + fn) >= 0.8, `${name}: only ${Math.round((100 * tp) / (tp + fn))}% of the article`);
    // Navigation and footers that are not part of the article are absent.
    for (const chrome of document.querySelectorAll(
      'nav, footer, [role="navigation"], [role="contentinfo"]',
    )) {
      const text = normalise(chrome.textContent ?? '');
      if (text.length < 40 || expected.includes(text)) continue;
      assert.ok(!got.includes(text), `${name}: page chrome leaked: "${text.slice(0, 80)}"`);
    }
    checked++;
  }
  assert.ok(checked >= 8, `only ${checked} sample pages found`);
});

/** `text` without the texts of the source's hidden elements (each removed where it stands as whole words). */
function withoutHiddenText(text: string, document: ReturnType<typeof parseHTML>['document']): string {
  let result = ` ${text} `;
  for (const element of document.querySelectorAll('body *')) {
    if (!hiddenReason(element as never)) continue;
    const hidden = normalise(element.textContent ?? '');
    if (hidden !== '' && hidden.length < 200) result = result.split(` ${hidden} `).join(' ');
  }
  return result.trim();
}
