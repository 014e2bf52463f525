import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isOneEdit, oneEditTerm, oneEditTerms } from './one-edit.ts';

test('one edit: a letter inserted, deleted, replaced, or two neighbours swapped; not equal, not two edits', () => {
  for (const [a, b] of [
    ['mathmatical', 'mathematical'],
    ['mathematical', 'mathmatical'],
    ['contorl', 'control'],
    ['seperate', 'separate'],
    ['africa', 'african'],
    ['xcontrol', 'control'],
    ['controlx', 'control'],
  ])
    assert.equal(isOneEdit(a!, b!), true, `${a} ${b}`);
  for (const [a, b] of [
    ['control', 'control'],
    ['mathmatcal', 'mathematical'],
    ['contrlo', 'controls'],
    ['abcdef', 'badcef'],
    ['reaction', 'relation'],
  ])
    assert.equal(isOneEdit(a!, b!), false, `${a} ${b}`);
});

test('only long words of letters are candidates; page words are compared lower-cased', () => {
  const terms = oneEditTerms(['mathmatical', 'proof', 'x1611ab', '', 'seperately'], 7);
  assert.deepEqual(terms?.words, ['mathmatical', 'seperately']);
  assert.equal(oneEditTerm(terms!, 'Mathematical'), 0);
  assert.equal(oneEditTerm(terms!, 'separately'), 4);
  assert.equal(oneEditTerm(terms!, 'proofs'), undefined);
  assert.equal(oneEditTerms(['mathmatical'], 0), undefined, '0 turns it off');
  assert.equal(oneEditTerms(['proof', '16111611'], 7), undefined);
});

test('words of other scripts than Latin are not matched at one edit (Arabic lost on held-out questions)', () => {
  assert.equal(oneEditTerms(['المدرسة', 'الجامعات'], 7), undefined);
  assert.deepEqual(oneEditTerms(['préfecture', 'المدرسة'], 7)?.words, ['préfecture']);
});
