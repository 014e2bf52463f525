// docs/errors.md is generated from the codes and their reasons (scripts/errors-reference.ts); this keeps it current,
// keeps the reasons in one spelling, and checks that the source writes and compares no reason outside the table.
// The compiler is the first check (PeriscopeErrorDetails<CODE>.reason is ReasonsByCode[CODE] wherever an error is
// made); the scan below is the net under it, for a reason that reaches `details` through an untyped path.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  ERRORS_REFERENCE_URL,
  REGENERATE_COMMAND,
  RENAMED_REASONS,
  renderErrorsReference,
} from '../scripts/errors-reference.ts';
import { ERROR_REASONS } from '../src/error-reasons.ts';
import { ERROR_CODES, PeriscopeError } from '../src/errors.ts';
import { shippedSources } from './support/source-scan.ts';

const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const ALL_REASONS = new Set(Object.values(ERROR_REASONS).flatMap((reasons) => Object.keys(reasons)));

/** The shipped source (tests excluded: they only compare, and the compiler checks those against the type). */

/**
 * The object literal around `index`, from its unmatched `{` to the matching `}`; undefined when the nearest
 * unmatched bracket is not a `{` (a parameter `reason: …` in a signature: a type, which the compiler checks).
 */
function enclosingObject(text: string, index: number): string | undefined {
  let depth = 0;
  let start = index;
  for (; start > 0; start -= 1) {
    const char = text[start] ?? '';
    if (')]}'.includes(char)) depth += 1;
    else if ('([{'.includes(char) && depth-- === 0) break;
  }
  if (text[start] !== '{') return undefined;
  depth = 0;
  let end = index;
  for (; end < text.length; end += 1) {
    if (text[end] === '{') depth += 1;
    else if (text[end] === '}' && depth-- === 0) break;
  }
  return text.slice(start, end + 1);
}

/** The value of the `reason:` property at `index`: up to the next `,` or `}` outside brackets. */
function propertyValue(text: string, index: number): string {
  let depth = 0;
  let end = index;
  for (; end < text.length; end += 1) {
    const char = text[end];
    if (char === '(' || char === '[' || char === '{') depth += 1;
    else if (char === ')' || char === ']' || char === '}') {
      if (depth === 0) break;
      depth -= 1;
    } else if ((char === ',' || char === ';') && depth === 0) break;
  }
  return text.slice(index, end);
}

/**
 * Every string literal the source writes as a `reason:` or compares with a `reason`: `{ reason: 'x' }`,
 * `reason: a ? 'x' : 'y'`, `reason === 'x'`, `'x' === error.details.reason`. Two other vocabularies share the name
 * and are left out: credit-ledger entries (an object with a `delta`, LedgerEntry.reason: grant, charge, refund…)
 * and a WebSocket close frame (`{ code: 1008, reason }`); so are parameters (`reason: 'failed' | …` in a
 * signature: types), `typeof x.reason === 'string'` and `''`.
 */
function reasonLiterals(): Array<{ where: string; literal: string }> {
  const found: Array<{ where: string; literal: string }> = [];
  for (const { path, text } of shippedSources()) {
    const lineOf = (index: number) => `${path}:${text.slice(0, index).split('\n').length}`;
    for (const match of text.matchAll(/\breason\??\s*:\s*/g)) {
      const object = enclosingObject(text, match.index);
      if (object === undefined || /\bdelta\b\s*[:,}]/.test(object) || /\bcode\s*:\s*\d/.test(object))
        continue;
      const value = propertyValue(text, match.index + match[0].length);
      // Literals that are operands of a comparison inside the value (`name === 'PasswordException' ? …`) are not reasons.
      for (const literal of value.matchAll(/(?<![!=]==\s*)'([^'\n]*)'(?!\s*[!=]==)/g))
        found.push({ where: lineOf(match.index), literal: literal[1] ?? '' });
    }
    for (const match of text.matchAll(/(typeof\s+)?[\w.?]*\breason\)?\s*[!=]==\s*'([^'\n]*)'/g))
      if (!match[1]) found.push({ where: lineOf(match.index), literal: match[2] ?? '' });
    for (const match of text.matchAll(/'([^'\n]*)'\s*[!=]==\s*[\w.?]*\breason\b/g))
      found.push({ where: lineOf(match.index), literal: match[1] ?? '' });
  }
  return found.filter(({ literal }) => literal !== '');
}

test('docs/errors.md is what scripts/errors-reference.ts generates from the codes and their reasons', () => {
  const written = readFileSync(ERRORS_REFERENCE_URL, 'utf8');
  assert.ok(
    written === renderErrorsReference(),
    `docs/errors.md is out of date with src/error-reasons.ts; regenerate it with: ${REGENERATE_COMMAND}`,
  );
});

test('docs/errors.md lists exactly the reasons of each code, and the README links it', () => {
  const written = readFileSync(ERRORS_REFERENCE_URL, 'utf8');
  for (const code of ERROR_CODES) {
    const row = written.split('\n').find((line) => line.startsWith(`| \`${code}\` |`)) ?? '';
    const listed = [...row.matchAll(/`([a-z0-9-]+)`/g)].map((match) => match[1]);
    assert.deepEqual(listed, Object.keys(ERROR_REASONS[code]), code);
  }
  assert.match(readFileSync(new URL('../README.md', import.meta.url), 'utf8'), /\(docs\/errors\.md\)/);
});

test('the reasons table has every code, and every reason is kebab-case and described', () => {
  assert.deepEqual(Object.keys(ERROR_REASONS), [...ERROR_CODES]);
  for (const [code, reasons] of Object.entries(ERROR_REASONS))
    for (const [reason, meaning] of Object.entries(reasons)) {
      assert.match(reason, KEBAB, `${code}: ${reason}`);
      assert.ok((meaning as string).trim().length > 10, `${code}: ${reason} has no meaning`);
    }
  for (const { to } of RENAMED_REASONS) for (const reason of to) assert.ok(ALL_REASONS.has(reason), reason);
});

test('the source writes and compares no details.reason outside the table', () => {
  const literals = reasonLiterals();
  const strays = literals.filter(({ literal }) => !ALL_REASONS.has(literal));
  assert.deepEqual(
    strays,
    [],
    'add the reason to src/error-reasons.ts (kebab-case, with its meaning), or use one there',
  );
  // The scan does see the places it guards (a scan that matched nothing would pass too).
  for (const expected of ['queue', 'javascript-shell', 'store-unavailable', 'shutting-down', 'invalid-key'])
    assert.ok(
      literals.some(({ literal }) => literal === expected),
      `the scan finds '${expected}'`,
    );
});

test('every reason in the table is one the source can send', () => {
  const source = shippedSources()
    .filter(({ path }) => path !== 'src/error-reasons.ts')
    .map(({ text }) => text)
    .join('\n');
  const unused = [...ALL_REASONS].filter((reason) => !source.includes(`'${reason}'`));
  assert.deepEqual(unused, [], 'reasons listed in src/error-reasons.ts that no source file writes');
});

test("the compiler refuses a reason that is not its code's (tsc checks the @ts-expect-error lines)", () => {
  const made = [
    // @ts-expect-error 'queue' is RATE_LIMITED's, not NETWORK's
    new PeriscopeError('NETWORK', 'x', { details: { reason: 'queue' } }),
    // @ts-expect-error no code has this reason
    new PeriscopeError('RATE_LIMITED', 'x', { details: { reason: 'queued' } }),
    // @ts-expect-error the old spelling
    new PeriscopeError('NETWORK', 'x', { details: { reason: 'store_unavailable' } }),
    new PeriscopeError('RATE_LIMITED', 'x', { details: { reason: 'queue' } }),
  ];
  assert.equal(made.at(-1)?.details.reason, 'queue');
});
