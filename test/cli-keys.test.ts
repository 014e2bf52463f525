// `periscope keys` in this process, over the key operation the gateway's admin routes use too (periscope.keys):
// the same checks, made before anything is written, and the same messages a user reads.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCliInProcess } from './support/run-cli.ts';

const folder = mkdtempSync(join(tmpdir(), 'periscope-cli-keys-'));
writeFileSync(
  join(folder, 'periscope.config.json'),
  JSON.stringify({ store: { url: `sqlite://${join(folder, 'keys.db')}` } }),
);
after(() => rmSync(folder, { recursive: true, force: true }));

const run = (args: string[]) => runCliInProcess(['keys', ...args], { cwd: folder });

test('keys create: a bad --credits, --rate or --agent is exit 2, one line, and writes no key', async () => {
  const mistakes: Array<[string[], RegExp]> = [
    [['--credits', '-5'], /^periscope: --credits expects a whole number ≥ 0, got '-5'$/],
    [['--credits', 'lots'], /^periscope: --credits expects a whole number, got 'lots'$/],
    [['--rate', '1/fortnight'], /^periscope: rate '1\/fortnight' is not understood/],
  ];
  for (const [flags, pattern] of mistakes) {
    const result = await run(['create', '--agent', 'bot', ...flags]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr.trimEnd(), pattern);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.equal(result.stdout, '');
  }
  const badAgent = await run(['create', '--agent', 'two words', '--credits', '5']);
  assert.equal(badAgent.code, 2);
  assert.match(badAgent.stderr, /agent id "two words" is not valid/);
  const listed = await run(['list', '--json']);
  assert.deepEqual(JSON.parse(listed.stdout), [], 'nothing was written');
});

test('keys create --note: cut to 200 characters, as the admin API does', async () => {
  const created = await run(['create', '--agent', 'noted', '--note', 'n'.repeat(300), '--json']);
  assert.equal(created.code, 0, created.stderr);
  const shown = JSON.parse(created.stdout) as { note: string; hash?: string };
  assert.equal(shown.note, 'n'.repeat(200));
  assert.equal(shown.hash, undefined);
});

test('keys create --allow-domain / --block-domain: kept normalised, listed; a bad pattern is exit 2, one line', async () => {
  const created = await run([
    'create',
    '--agent',
    'narrow',
    '--allow-domain',
    'Bücher.example',
    '--allow-domain',
    'docs.example',
    '--block-domain',
    '*.ads.docs.example',
    '--json',
  ]);
  assert.equal(created.code, 0, created.stderr);
  const shown = JSON.parse(created.stdout) as { domains: unknown };
  assert.deepEqual(shown.domains, {
    allow: ['xn--bcher-kva.example', 'docs.example'],
    block: ['*.ads.docs.example'],
  });
  const listed = await run(['list']);
  assert.match(listed.stdout, /only xn--bcher-kva\.example, docs\.example; not \*\.ads\.docs\.example/);
  const bad = await run(['create', '--agent', 'narrow', '--allow-domain', 'docs.example:443']);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(
    bad.stderr.trimEnd(),
    /^periscope: allowDomains: "docs\.example:443" is not a domain pattern: leave the port out$/,
  );
});

test('keys create --session-max-calls / --session-max-credits: the key’s session budget, kept and listed', async () => {
  const created = await run([
    'create',
    '--agent',
    'budgeted',
    '--session-max-calls',
    'web_fetch=20',
    '--session-max-calls',
    'web_search=5',
    '--session-max-credits',
    '100',
  ]);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stderr, /\(web_fetch 20, web_search 5, 100 credits per session\)/);
  const listed = await run(['list', '--json']);
  const key = (JSON.parse(listed.stdout) as Array<{ agent: string; session?: unknown }>).find(
    (entry) => entry.agent === 'budgeted',
  );
  assert.deepEqual(key?.session, { maxCalls: { web_fetch: 20, web_search: 5 }, maxCredits: 100 });
  assert.match((await run(['list'])).stdout, /web_fetch 20, web_search 5, 100 credits per session/);
  for (const [flags, pattern] of [
    [
      ['--session-max-calls', 'web_crawl=3'],
      /^periscope: --session-max-calls expects TOOL=N with TOOL one of/,
    ],
    [
      ['--session-max-credits', 'many'],
      /^periscope: --session-max-credits expects a whole number ≥ 0, got 'many'$/,
    ],
  ] as const) {
    const bad = await run(['create', '--agent', 'budgeted', ...flags]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr.trimEnd(), pattern);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
  }
});
