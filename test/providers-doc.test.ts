// docs/providers.md describes every built-in provider; this keeps its tables true to the code: one row per provider
// in the `auto` order, the credentials' variables, web/images, the default pacing, live quota, and each note; and
// the search parameters each takes, as its parameter table (src/search/parameter-table.ts) renders them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { AUTO_ORDER, KEYLESS_TAIL } from '../src/search/chain.ts';
import { parameterCells } from '../src/search/parameter-table.ts';
import { wellKnownEnv } from '../src/search/provider-settings.ts';
import { BUILT_IN_PROVIDERS } from '../src/search/providers/registry.ts';

const doc = readFileSync(new URL('../docs/providers.md', import.meta.url), 'utf8');
const [providersPart = '', parametersPart = ''] = doc.split('## Search parameters');

/** `| \`id\` | credentials | search | pacing | quota | notes |` rows, keyed by id. */
const rows = new Map(
  providersPart
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim());
      return [cells[0]?.replaceAll('`', '') ?? '', cells] as const;
    }),
);

test('docs/providers.md has one row per built-in provider, in the auto order', () => {
  assert.deepEqual([...rows.keys()], [...AUTO_ORDER, ...KEYLESS_TAIL]);
  assert.deepEqual([...rows.keys()].sort(), [...BUILT_IN_PROVIDERS.keys()].sort());
});

for (const [id, provider] of BUILT_IN_PROVIDERS) {
  test(`docs/providers.md: ${id} as the code has it`, () => {
    const [, credentials = '', search = '', pacing = '', quota = '', notes = ''] = rows.get(id) ?? [];
    const variables = Object.values(wellKnownEnv(provider)).flat();
    if (variables.length === 0) assert.equal(credentials, 'keyless');
    for (const variable of variables)
      assert.ok(credentials.includes(`\`${variable}\``), `${id}: ${variable}`);
    const supports = [...(provider.search ? ['web'] : []), ...(provider.searchImages ? ['images'] : [])];
    assert.equal(search, supports.join(', '));
    assert.ok(pacing.startsWith(`${provider.minIntervalMs} ms`), `${id}: ${pacing}`);
    assert.equal(pacing.includes('one at a time'), provider.maxConcurrent === 1, `${id}: ${pacing}`);
    assert.equal(quota.startsWith('live'), typeof provider.quota === 'function', `${id}: ${quota}`);
    if (provider.note !== undefined) assert.ok(notes.includes(provider.note), `${id}: the note`);
  });
}

test("docs/providers.md: the search parameter table is each provider's parameter table, in the auto order", () => {
  const written = parametersPart.split('\n').filter((line) => line.startsWith('| `'));
  const expected = [...AUTO_ORDER, ...KEYLESS_TAIL].map(
    (id) => `| \`${id}\` | ${parameterCells(BUILT_IN_PROVIDERS.get(id)?.parameters).join(' | ')} |`,
  );
  assert.deepEqual(written, expected);
});

test("every built-in provider's parameter table names the documentation it follows, and the doc table shows it beside each entry", () => {
  for (const [id, provider] of BUILT_IN_PROVIDERS) {
    const table = provider.parameters;
    assert.ok(table?.doc?.startsWith('https://'), `${id}: a documentation address`);
    for (const cell of parameterCells(table))
      assert.match(cell, /\(<https:\/\/[^>]+>(, <https:\/\/[^>]+>)*\)$/, `${id}: ${cell}`);
  }
});
