// The tools' schemas judge what the CLI's flags make; INVALID_INPUT carries the field and the constraint it broke
// (details.field, details.constraint), and the CLI says it with the flag's name: exit 2, one line, no call made.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createPeriscope, type SearchErrorData } from '../src/index.ts';
import { runCliInProcess } from './support/run-cli.ts';

const folder = mkdtempSync(join(tmpdir(), 'periscope-cli-input-'));
writeFileSync(
  join(folder, 'page.html'),
  '<html><body><main><h1>Tides</h1><p>High tide at 06:12.</p></main></body></html>',
);
after(() => rmSync(folder, { recursive: true, force: true }));

test('a tool refuses bad input with the field and the constraint as data', async () => {
  const periscope = createPeriscope();
  try {
    const cases: Array<[Record<string, unknown>, unknown]> = [
      [
        { query: 'x', count: 50 },
        { field: 'count', constraint: { kind: 'at-most', maximum: 20 } },
      ],
      [
        { query: 'x', count: 0 },
        { field: 'count', constraint: { kind: 'at-least', minimum: 1 } },
      ],
      [
        { query: 'x', count: 2.5 },
        { field: 'count', constraint: { kind: 'whole-number' } },
      ],
      [
        { query: 'x', freshness: 'hour' },
        { field: 'freshness', constraint: { kind: 'one-of', values: ['day', 'week', 'month', 'year'] } },
      ],
      [
        { query: 'x', region: 'germany' },
        {
          field: 'region',
          constraint: { kind: 'format', description: 'a two-letter country code such as us or de' },
        },
      ],
      [
        { query: 'x'.repeat(501) },
        { field: 'query', constraint: { kind: 'at-most', maximum: 500, of: 'characters' } },
      ],
    ];
    for (const [input, details] of cases) {
      const result = await periscope.search(input as never);
      const { error } = result.data as SearchErrorData;
      assert.equal(error.code, 'INVALID_INPUT');
      assert.deepEqual(error.details, details, JSON.stringify(input));
    }
  } finally {
    await periscope.close();
  }
});

test('the CLI says each problem with its flag: exit 2, one line, before any call', async () => {
  const mistakes: Array<[string[], string]> = [
    [['search', 'x', '--count', '50'], '--count must be 20 or less, got 50'],
    [['search', 'x', '--count', '0'], "--count expects a whole number ≥ 1, got '0'"],
    [['search', 'x', '--count', '1.5'], "--count expects a whole number, got '1.5'"],
    [['search', 'x', '--count', 'many'], "--count expects a whole number, got 'many'"],
    [['search', 'x', '--freshness', 'hour'], "--freshness must be one of day, week, month, year, got 'hour'"],
    [
      ['search', 'x', '--region', 'germany'],
      "--region must be a two-letter country code such as us or de, got 'germany'",
    ],
    [
      ['images', 'x', '--type', 'svg'],
      "--type must be one of photo, clipart, gif, transparent, line, got 'svg'",
    ],
    [['fetch', 'https://example.com/', '--mode', 'html'], "--mode must be markdown or text, got 'html'"],
    [
      ['fetch', 'https://example.com/', '--max-chars', '50'],
      "--max-chars expects a whole number ≥ 100, got '50'",
    ],
    [['fetch', 'https://example.com/', '--start', '-1'], "--start expects a whole number ≥ 0, got '-1'"],
    [['fetch', 'https://example.com/', '--max-age', '-5'], "--max-age expects a whole number ≥ 0, got '-5'"],
    [['search', 'x', '--max-age', 'soon'], "--max-age expects a whole number, got 'soon'"],
    [['images', 'x', '--max-age', '1.5'], "--max-age expects a whole number, got '1.5'"],
    // extract: the library's extract judges --mode and --url.
    [['extract', join(folder, 'page.html'), '--mode', 'html'], "--mode must be markdown or text, got 'html'"],
    [
      ['extract', join(folder, 'page.html'), '--url', 'nowhere'],
      "--url must be an absolute URL, got 'nowhere'",
    ],
  ];
  for (const [args, message] of mistakes) {
    const result = await runCliInProcess(args, { cwd: folder });
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.equal(result.stderr, `periscope: ${message}\n`, args.join(' '));
    assert.equal(result.stdout, '');
  }
});
