import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wrapUntrusted } from '../../content/untrusted-envelope.ts';
import type { ToolResult } from '../../tool-call.ts';
import { toolResultJson } from './tool-result-json.ts';

/** A web_fetch-shaped result: the text inside the envelope in `output`, and as it is in `data.text`. */
function fetched(text: string, extra: Record<string, unknown> = {}): ToolResult {
  return {
    isError: false,
    output: `Title: A page\nURL: https://example.com/\n\n${wrapUntrusted(text, 'https://example.com/').text}`,
    data: { url: 'https://example.com/', title: 'A "page"', truncated: false, text, ...extra },
    display: 'fetch example.com → 1 200 chars in 4 ms',
  };
}

const texts: Record<string, string> = {
  ascii: 'Plain words of a page. '.repeat(80),
  'quotes, backslashes, control characters': 'He said "no"\\ then\ttabbed\r\n\u0001\u001f\u007f. '.repeat(60),
  'two-byte: dashes, CJK, emoji': 'A page — with 漢字 and 😀 and “curly quotes”. '.repeat(60),
  'lone surrogates': `${'x'.repeat(1200)}\ud800 lone high, lone low \udc00, pair \ud83d\ude00 end`,
  'text starting and ending with a surrogate pair': `😀${'y'.repeat(1500)}😀`,
  'JSON-like and marker-like text': `{"output":"\\u0000periscope-output-0000"} \u0000periscope-text-`.repeat(
    40,
  ),
};

test('a fetched page serialises byte for byte as JSON.stringify does, whatever its text', () => {
  for (const [name, text] of Object.entries(texts)) {
    const result = fetched(text);
    assert.equal(toolResultJson(result), JSON.stringify(result), name);
    assert.deepEqual(JSON.parse(toolResultJson(result)), JSON.parse(JSON.stringify(result)), name);
  }
});

test('the text is escaped once: the whole result never goes through JSON.stringify, the text once', (context) => {
  const text = texts['two-byte: dashes, CJK, emoji'] as string;
  const result = fetched(text);
  const expected = JSON.stringify(result);
  const stringify = JSON.stringify;
  const seen: unknown[] = [];
  context.mock.method(JSON, 'stringify', (value: unknown, ...rest: []) => {
    seen.push(value);
    return stringify(value, ...rest);
  });
  assert.equal(toolResultJson(result), expected);
  assert.equal(seen.includes(result), false, 'not the whole result');
  assert.equal(seen.filter((value) => value === text).length, 1, 'the text once');
  assert.equal(
    seen.some((value) => typeof value === 'string' && value.length > text.length),
    false,
    'nor the output whole',
  );
});

test('results it cannot splice are serialised as JSON.stringify does', () => {
  const text = 'Words. '.repeat(300);
  const cases: Record<string, ToolResult> = {
    'short text': fetched('short'),
    'an error result': {
      isError: true,
      output: 'Error NETWORK: refused',
      data: { error: { code: 'NETWORK' } },
    },
    'output without the text': { isError: false, output: 'a summary', data: { text } },
    'no data': { isError: false, output: text },
    'data before output': { data: { text }, isError: false, output: `>>> ${text}` } as ToolResult,
    'text not a string': { isError: false, output: text, data: { text: 42 } },
    'undefined fields dropped': {
      isError: false,
      output: text,
      data: { text, gone: undefined },
      display: undefined,
    } as unknown as ToolResult,
  };
  for (const [name, result] of Object.entries(cases))
    assert.equal(toolResultJson(result), JSON.stringify(result), name);
});

test("'output' leaves data.text out and keeps everything else, in its order", () => {
  for (const [name, text] of Object.entries(texts)) {
    const result = fetched(text);
    const json = toolResultJson(result, 'output');
    const { text: _text, ...rest } = result.data as Record<string, unknown>;
    assert.equal(json, JSON.stringify({ ...result, data: rest }), name);
    const parsed = JSON.parse(json) as ToolResult & { data: Record<string, unknown> };
    assert.equal(parsed.output, result.output, name);
    assert.equal('text' in parsed.data, false, name);
    assert.deepEqual(Object.keys(parsed), ['isError', 'output', 'data', 'display'], name);
    assert.deepEqual(Object.keys(parsed.data), ['url', 'title', 'truncated'], name);
  }
});

test("'data' leaves output out and keeps data whole", () => {
  for (const [name, text] of Object.entries(texts)) {
    const result = fetched(text);
    const parsed = JSON.parse(toolResultJson(result, 'data')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed), ['isError', 'data', 'display'], name);
    assert.deepEqual(parsed.data, result.data, name);
  }
});

test("'both' is the default; a result without data.text is whole under 'output'", () => {
  const result = fetched('Words. '.repeat(300));
  assert.equal(toolResultJson(result, 'both'), toolResultJson(result));
  const failed: ToolResult = {
    isError: true,
    output: 'Error NETWORK: refused',
    data: { error: { code: 'NETWORK' } },
  };
  const search: ToolResult = { isError: false, output: 'results', data: { results: [{ title: 'a' }] } };
  for (const whole of [failed, search, { isError: false, output: 'no data' }])
    assert.equal(toolResultJson(whole, 'output'), JSON.stringify(whole));
  assert.equal(toolResultJson(failed, 'data'), JSON.stringify({ isError: true, data: failed.data }));
});
