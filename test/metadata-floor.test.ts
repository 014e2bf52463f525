// Regression floor for page metadata on the readability development set (../shared/corpus/readability):
// how many pages' title, byline, language, site name and publication date equal Readability.js's own.
// The floors are the counts when they were set, less 2; raise them when the counts rise.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  type ExpectedMetadata,
  listReadabilitySet,
  METADATA_FIELDS,
  type MetadataField,
  READABILITY_PAGE_URL,
  READABILITY_SET,
  sameMetadata,
} from '../bench/extract-corpus.ts';
import type { PageMetadata } from '../src/content/html/read-metadata.ts';
import { extractHtml } from '../src/content/html-extract.ts';

/**
 * Counts at the time of writing (of 130 pages): title 130, byline 127, lang 129, siteName 130,
 * publishedTime 124. The pages below them are ones where Readability finds nothing or something worse:
 * the page's own `<meta name="date">` (Readability reads no such tag), `<meta http-equiv="content-language">`,
 * and the article's own author where Readability takes another story's.
 */
const FLOOR: Record<MetadataField, number> = {
  title: 128,
  byline: 125,
  lang: 127,
  siteName: 128,
  publishedTime: 122,
};

const OURS: Record<MetadataField, keyof PageMetadata> = {
  title: 'title',
  byline: 'byline',
  lang: 'language',
  siteName: 'siteName',
  publishedTime: 'publishedAt',
};

const skip = existsSync(READABILITY_SET)
  ? false
  : `the readability set (${READABILITY_SET}) is not beside this checkout`;

test('metadata agrees with Readability.js on the readability set at least as often as before', {
  skip,
}, () => {
  const counts = Object.fromEntries(METADATA_FIELDS.map((field) => [field, 0])) as Record<
    MetadataField,
    number
  >;
  const misses: string[] = [];
  for (const name of listReadabilitySet()) {
    const html = readFileSync(join(READABILITY_SET, name, 'source.html'), 'utf8');
    const expected = JSON.parse(
      readFileSync(join(READABILITY_SET, name, 'expected-metadata.json'), 'utf8'),
    ) as ExpectedMetadata;
    const result = extractHtml(html, { url: READABILITY_PAGE_URL, mode: 'text' });
    for (const field of METADATA_FIELDS) {
      const got = result[OURS[field]];
      if (sameMetadata(got, expected[field])) counts[field] += 1;
      else misses.push(`${field} ${name}: ${JSON.stringify(got)} ≠ ${JSON.stringify(expected[field])}`);
    }
  }
  for (const field of METADATA_FIELDS) {
    assert.ok(
      counts[field] >= FLOOR[field],
      `${field}: ${counts[field]} pages agree, the floor is ${FLOOR[field]}\n${misses.join('\n')}`,
    );
  }
});
