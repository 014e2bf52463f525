// The repeat throttle through createPeriscope: per session, by normalised signature, continuation reads exempt.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { errorOf, outcome, type PolicyHarness, startPolicyHarness } from '../testing/policy-harness.ts';
import { normaliseQuery } from '../tools/normalise-query.ts';
import { lookupSignature } from './lookup-signature.ts';

let harness: PolicyHarness;
before(async () => {
  harness = await startPolicyHarness();
});
after(() => harness.close());

test('signatures: queries lower-cased with whitespace folded, URLs canonical, continuation reads none', () => {
  assert.equal(normaliseQuery('  Tide\tTables \n BREST '), 'tide tables brest');
  assert.equal(lookupSignature('web_search', { query: 'Tide  Tables' }), 'web_search:tide tables');
  assert.equal(lookupSignature('image_search', { query: 'Tide' }), 'image_search:tide');
  assert.equal(
    lookupSignature('web_fetch', { url: 'HTTPS://www.Example.com/a/?utm_source=x&b=2#top' }),
    'web_fetch:example.com/a?b=2',
  );
  assert.equal(lookupSignature('web_fetch', { url: 'example.com/a' }), 'web_fetch:example.com/a');
  assert.equal(lookupSignature('web_fetch', { url: 'https://example.com/a', startIndex: 5000 }), undefined);
  // Another question of the same page is another lookup; the same question asked twice is the same one.
  assert.equal(
    lookupSignature('web_fetch', { url: 'https://example.com/a', query: 'When  was it BUILT?' }),
    'web_fetch:example.com/a ?when was it built?',
  );
  assert.throws(() => lookupSignature('web_fetch', { url: 'http://exa mple.com' }), /not a valid URL/);
});

test('a session may make a lookup twice; the third is REPEATED_LOOKUP, telling the model to use what it has', async () => {
  const periscope = harness.open({ cache: { enabled: false } });
  const session = { sessionId: 'turn-1' };
  assert.equal(outcome(await periscope.search({ query: 'Tide  Tables' }, session)), 'ok');
  assert.equal(outcome(await periscope.search({ query: 'tide tables' }, session)), 'ok');
  const before = harness.searches();
  const third = await periscope.search({ query: ' TIDE tables ' }, session);
  assert.equal(outcome(third), 'REPEATED_LOOKUP');
  assert.equal(harness.searches(), before, 'the refused call never reached the provider');
  assert.match(
    third.output,
    /^You already made this exact lookup in this session; use the results you already have/,
  );
  assert.match(errorOf(third).message, /web_search for "tide tables" 2 times \(limits\.repeatLookups: 2\)/);
  assert.match(third.display ?? '', /^search "TIDE tables" → REPEATED_LOOKUP/);

  // Scope: another session, another agent's session of the same name, and no session at all.
  assert.equal(outcome(await periscope.search({ query: 'tide tables' }, { sessionId: 'turn-2' })), 'ok');
  assert.equal(
    outcome(await periscope.search({ query: 'tide tables' }, { sessionId: 'turn-1', agentId: 'other' })),
    'ok',
  );
  for (let call = 0; call < 3; call++)
    assert.equal(outcome(await periscope.search({ query: 'tide tables' })), 'ok');
  // Another tool, another signature.
  assert.equal(outcome(await periscope.imageSearch({ query: 'tide tables' }, session)), 'ok');
  await periscope.close();
});

test('web_fetch: the same page under another form of its URL is a repeat; continuation reads are not', async () => {
  const periscope = harness.open({ limits: { repeatLookups: 1 } });
  const session = { sessionId: 'reader' };
  const url = `${harness.pages.url}/long`;
  const first = await periscope.fetch({ url, maxChars: 1000 }, session);
  assert.equal(outcome(first), 'ok');
  let startIndex = (first.data as { nextStartIndex: number }).nextStartIndex;
  for (let page = 0; page < 3; page++) {
    const next = await periscope.fetch({ url, maxChars: 1000, startIndex }, session);
    assert.equal(outcome(next), 'ok', next.output);
    startIndex = (next.data as { nextStartIndex: number }).nextStartIndex;
  }
  const again = await periscope.fetch({ url: `${url}/?utm_source=feed#top` }, session);
  assert.equal(outcome(again), 'REPEATED_LOOKUP');
  assert.match(errorOf(again).message, /web_fetch of 127\.0\.0\.1:\d+\/long once/);
  await periscope.close();
});

test('the tools in periscope.tools go through the throttle too; repeatLookups: false turns it off', async () => {
  const throttled = harness.open();
  const tool = throttled.tools.find((item) => item.name === 'web_search');
  assert.ok(tool);
  const session = { sessionId: 'mcp-session' };
  await tool.execute({ query: 'lighthouse' }, session);
  await tool.execute({ query: 'lighthouse' }, session);
  assert.equal(outcome(await tool.execute({ query: 'lighthouse' }, session)), 'REPEATED_LOOKUP');
  await throttled.close();

  const free = harness.open({ limits: { repeatLookups: false } });
  for (let call = 0; call < 4; call++)
    assert.equal(outcome(await free.search({ query: 'lighthouse' }, session)), 'ok');
  await free.close();
});

test('a refused repeat costs no credit and takes no rate-limit unit (the throttle comes first)', async () => {
  const periscope = harness.open({
    limits: {
      repeatLookups: 1,
      rate: { perAgent: { count: 2, windowMs: 60_000 } },
      credits: { enabled: true, initial: 10 },
    },
  });
  const session = { sessionId: 's', agentId: 'frugal' };
  assert.equal(outcome(await periscope.search({ query: 'buoys' }, session)), 'ok');
  for (let call = 0; call < 3; call++)
    assert.equal(outcome(await periscope.search({ query: 'buoys' }, session)), 'REPEATED_LOOKUP');
  assert.equal(await periscope.credits.balance('frugal'), 8);
  assert.equal(
    outcome(await periscope.search({ query: 'beacons' }, session)),
    'ok',
    'one rate unit was left',
  );
  await periscope.close();
});

test('the throttle forgets a session after repeatWindowMs', async () => {
  const periscope = harness.open({ limits: { repeatLookups: 1, repeatWindowMs: 150 } });
  const session = { sessionId: 'short' };
  assert.equal(outcome(await periscope.search({ query: 'gulls' }, session)), 'ok');
  assert.equal(outcome(await periscope.search({ query: 'gulls' }, session)), 'REPEATED_LOOKUP');
  await new Promise((resolve) => setTimeout(resolve, 250));
  assert.equal(outcome(await periscope.search({ query: 'gulls' }, session)), 'ok');
  await periscope.close();
});
