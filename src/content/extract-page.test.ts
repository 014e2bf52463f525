// periscope.extract: a page already in hand → its main content, as a library call (the CLI's `extract` uses it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPeriscopeError } from '../errors.ts';
import { createPeriscope } from '../index.ts';

const PAGE = `<!doctype html><html><head><title>Tide tables</title></head><body><main><h1>Tide tables</h1>
<p>See the <a href="../almanac/2026">almanac</a> for the year.</p>
${'<p>High tide at Brest is at 06:12 and 18:40 today; the coefficient is 95, a spring tide.</p>'.repeat(8)}</main></body></html>`;

function failsWith(code: string, pattern?: RegExp) {
  return (error: unknown) => {
    assert.ok(isPeriscopeError(error), String(error));
    assert.equal(error.code, code);
    if (pattern) assert.match(error.message, pattern);
    return true;
  };
}

test('html or bytes → the main content, links made absolute against url, in markdown or text', async () => {
  const periscope = createPeriscope();
  try {
    const fromHtml = await periscope.extract({ html: PAGE, url: 'https://tides.example/today/brest' });
    assert.equal(fromHtml.kind, 'html');
    assert.equal(fromHtml.title, 'Tide tables');
    assert.match(fromHtml.text, /High tide at Brest/);
    assert.match(fromHtml.text, /\[almanac\]\(https:\/\/tides\.example\/almanac\/2026\)/);
    const fromBytes = await periscope.extract({ bytes: new TextEncoder().encode(PAGE), mode: 'text' });
    assert.equal(fromBytes.title, 'Tide tables');
    assert.doesNotMatch(fromBytes.text, /\[almanac\]\(/, 'text mode drops the markup');
    assert.match(fromBytes.text, /almanac/);
  } finally {
    await periscope.close();
  }
});

test('binary data is UNSUPPORTED_CONTENT and a page without text EMPTY_CONTENT, each naming the input', async () => {
  const periscope = createPeriscope();
  try {
    const binary = Uint8Array.from({ length: 4096 }, (_, index) => (index * 7) % 256);
    await assert.rejects(
      periscope.extract({ bytes: binary, name: 'data.bin' }),
      failsWith('UNSUPPORTED_CONTENT', /^data\.bin is binary data, not HTML/),
    );
    await assert.rejects(
      periscope.extract({ html: '<!doctype html><html><head><title></title></head><body></body></html>' }),
      failsWith('EMPTY_CONTENT', /^the page has no readable text/),
    );
  } finally {
    await periscope.close();
  }
});

test('bad input is INVALID_INPUT naming the field and the constraint', async () => {
  const periscope = createPeriscope();
  try {
    await assert.rejects(periscope.extract({ html: PAGE, mode: 'html' as never }), (error: unknown) => {
      assert.ok(isPeriscopeError(error));
      assert.equal(error.code, 'INVALID_INPUT');
      assert.deepEqual(error.details, {
        field: 'mode',
        constraint: { kind: 'one-of', values: ['markdown', 'text'] },
      });
      return true;
    });
    await assert.rejects(periscope.extract({ html: PAGE, url: 'not a url' }), failsWith('INVALID_INPUT'));
    await assert.rejects(periscope.extract({}), failsWith('INVALID_INPUT', /html .* or as bytes/));
    await assert.rejects(
      periscope.extract({ html: PAGE, bytes: new Uint8Array(1) }),
      failsWith('INVALID_INPUT', /one of the two/),
    );
  } finally {
    await periscope.close();
  }
});
