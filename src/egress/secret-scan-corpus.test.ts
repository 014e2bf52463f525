// False positives of secret scanning, measured on __fixtures__/ordinary-outbound.txt: queries and URLs people send
// every day (hashes they search for, UUIDs, base64 in documentation URLs, long slugs, query strings of common sites,
// code). The entropy rule (src/egress/token-entropy.ts) was tuned on the even lines and generated keys of seed 1;
// the odd lines and seed 2 are held out. The rates are printed as diagnostics (`node --test` shows them).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fakeRandomTokens, fakeSecrets } from '../testing/fake-secrets.ts';
import { createSecretScanner } from './secret-scanner.ts';

const LINES = readFileSync(new URL('./__fixtures__/ordinary-outbound.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'));
const TUNING = LINES.filter((_, index) => index % 2 === 0);
const HELD_OUT = LINES.filter((_, index) => index % 2 === 1);

const formatsOnly = createSecretScanner({ secrets: [], entropy: false });
const withEntropy = createSecretScanner({ secrets: [], entropy: true });

function rate(found: number, total: number): string {
  return `${found}/${total} (${((100 * found) / total).toFixed(1)}%)`;
}

/** Carried the ways a model would be told to send it: in a query, or in a URL's query string. */
function carried(secret: string, index: number): string {
  return index % 2 === 0
    ? `${LINES[index % LINES.length]} ${secret}`
    : `https://collect.example/pixel.gif?v=${encodeURIComponent(secret)}`;
}

test('the corpus is large and mixed enough to measure on', () => {
  assert.ok(LINES.length >= 200, `${LINES.length} lines`);
  const urls = LINES.filter((line) => /^https?:\/\//.test(line)).length;
  assert.ok(urls >= 80 && LINES.length - urls >= 80, `${urls} URLs, ${LINES.length - urls} queries`);
  assert.equal(new Set(LINES).size, LINES.length, 'no line twice');
});

test('known formats and literal values (the default): no ordinary query or URL is refused', (t) => {
  const refused = LINES.filter((line) => formatsOnly.scan(line) !== undefined);
  t.diagnostic(`false positives, entropy off: ${rate(refused.length, LINES.length)}`);
  assert.deepEqual(refused, []);
});

test('known formats are all found in ordinary text, on keys drawn from seeds the rules never saw', (t) => {
  const secrets = [11, 12, 13, 14, 15].flatMap(fakeSecrets);
  const missed = secrets.filter(
    ({ kind, text }, index) => formatsOnly.scan(carried(text, index))?.kind !== kind,
  );
  t.diagnostic(`known formats found: ${rate(secrets.length - missed.length, secrets.length)}`);
  assert.deepEqual(missed, []);
});

test('known formats are found base64-, base64url- and hex-encoded in ordinary text, on seeds the rules never saw', (t) => {
  const encodings = ['base64', 'base64url', 'hex'] as const;
  const secrets = [16, 17].flatMap(fakeSecrets);
  const cases = secrets.flatMap(({ kind, text }, index) =>
    encodings.map((encoding) => ({ kind, encoding, text: Buffer.from(text).toString(encoding), index })),
  );
  const missed = cases.filter(
    ({ kind, text, index }) => formatsOnly.scan(carried(text, index))?.kind !== kind,
  );
  t.diagnostic(`encoded known formats found: ${rate(cases.length - missed.length, cases.length)}`);
  assert.deepEqual(missed, []);
});

test('entropy on: few ordinary queries and URLs refused, on the tuning half and the held-out half alike', (t) => {
  const tuning = TUNING.filter((line) => withEntropy.scan(line) !== undefined);
  const heldOut = HELD_OUT.filter((line) => withEntropy.scan(line) !== undefined);
  t.diagnostic(`false positives, entropy on: tuning ${rate(tuning.length, TUNING.length)}`);
  t.diagnostic(`false positives, entropy on: held out ${rate(heldOut.length, HELD_OUT.length)}`);
  for (const line of [...tuning, ...heldOut]) t.diagnostic(`  refused: ${line}`);
  // What it refuses are ids made of random characters (Google Docs, IPFS, Bitcoin, compressed editor state):
  // indistinguishable from keys by their letters, which is why the rule is off by default.
  assert.ok(tuning.length / TUNING.length <= 0.05, rate(tuning.length, TUNING.length));
  assert.ok(heldOut.length / HELD_OUT.length <= 0.05, rate(heldOut.length, HELD_OUT.length));
});

test('entropy on: random tokens in no known format are found (seed 1 tuned on, seed 2 held out)', (t) => {
  for (const seed of [1, 2]) {
    const tokens = fakeRandomTokens(seed, 50);
    const found = tokens.filter((token, index) => withEntropy.scan(carried(token, index)) !== undefined);
    const byFormats = tokens.filter((token, index) => formatsOnly.scan(carried(token, index)) !== undefined);
    t.diagnostic(
      `random tokens found, seed ${seed}: entropy on ${rate(found.length, tokens.length)}, off ${rate(byFormats.length, tokens.length)}`,
    );
    assert.ok(found.length / tokens.length >= 0.9, rate(found.length, tokens.length));
  }
});
