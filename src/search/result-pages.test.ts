import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageFor, pageSlice } from './result-pages.ts';

test('pageFor: the smallest page that holds exactly the results asked for', () => {
  // Results 5–9: the second page of 5.
  assert.deepEqual(pageFor('p', 5, 5, 20), { size: 5, index: 1, skip: 0 });
  // Results 3–7: no page of 5, 6 or 7 holds them all; the first page of 8 does.
  assert.deepEqual(pageFor('p', 3, 5, 20), { size: 8, index: 0, skip: 3 });
  // Results 40–49 with at most 9 pages deep: pages of 10 reach index 4.
  assert.deepEqual(pageFor('p', 40, 10, 20, 9), { size: 10, index: 4, skip: 0 });
  // Every page a size of 20 or less could be is deeper than 2: the nearest page below, said so.
  const deep = pageFor('p', 95, 5, 20, 2);
  assert.deepEqual({ ...deep, warning: undefined }, { size: 5, index: 2, skip: 0, warning: undefined });
  assert.equal(deep.warning, 'p cannot start a page at offset 95; these results start at offset 10');
});

test('pageFor: every offset and count is served exactly when the page may be large enough', () => {
  for (let count = 1; count <= 20; count++) {
    for (let offset = 0; offset <= 100; offset++) {
      const page = pageFor('p', offset, count, 100);
      assert.equal(page.warning, undefined, `${offset}/${count}`);
      assert.equal(page.index * page.size + page.skip, offset, `${offset}/${count}`);
      assert.ok(page.skip + count <= page.size, `${offset}/${count}`);
    }
  }
});

test('pageSlice drops missing results, then skips and keeps count', () => {
  const page = { size: 8, index: 0, skip: 3 };
  assert.deepEqual(pageSlice([1, undefined, 2, 3, 4, 5, 6, 7, 8], page, 3), [4, 5, 6]);
  assert.deepEqual(pageSlice([1, 2, 3], undefined, 2), [1, 2]);
});
