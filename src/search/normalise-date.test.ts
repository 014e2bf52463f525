import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runNode } from '../../test/support/run-cli.ts';
import { normaliseDate } from './normalise-date.ts';

/**
 * Zones the date cases are run under, with their offset east of UTC in minutes on 2022-11-11: UTC, one east of it
 * (Berlin), one far west (Los Angeles), one on a half hour (Kolkata) and the far east (Kiritimati, +14), where local
 * midnight is the previous UTC day.
 */
const TIME_ZONES: Record<string, number> = {
  UTC: 0,
  'Europe/Berlin': 60,
  'America/Los_Angeles': -480,
  'Asia/Kolkata': 330,
  'Pacific/Kiritimati': 840,
};
/** Set in the children this file spawns: they run the cases under their zone and do not spawn again. */
const CHILD_ZONE = process.env.PERISCOPE_TEST_TIME_ZONE;

const NOW = Date.parse('2026-05-10T12:00:00Z');

/** Each date shape providers send (FORMATS.md and the recorded fixtures), and what it must become on any machine. */
const CASES: Array<[unknown, string | undefined]> = [
  // A calendar date stays a calendar date.
  ['2024-03-05', '2024-03-05'],
  ['2023-06-15', '2023-06-15'],
  ['2024-02-29', '2024-02-29'],
  // SerpAPI and Serper `date`: month names, no zone.
  ['Nov 11, 2022', '2022-11-11'],
  ['Jan 8, 2019', '2019-01-08'],
  ['Aug 31, 2022', '2022-08-31'],
  ['November 11, 2022', '2022-11-11'],
  ['Sept 5, 2024', '2024-09-05'],
  ['11 Nov 2022', '2022-11-11'],
  ['11 November 2022', '2022-11-11'],
  ['Fri, 11 Nov 2022', '2022-11-11'],
  // ISO with a zone: the instant, in UTC.
  ['2024-03-05T10:00:00+02:00', '2024-03-05T08:00:00.000Z'],
  ['2024-11-29T03:54:26Z', '2024-11-29T03:54:26.000Z'],
  ['2023-11-16T01:36:32.547Z', '2023-11-16T01:36:32.547Z'],
  ['2024-01-18T08:20:00.0000000Z', '2024-01-18T08:20:00.000Z'],
  ['2024-03-05T10:00:00-0530', '2024-03-05T15:30:00.000Z'],
  ['2022-11-11 10:00:00+01:00', '2022-11-11T09:00:00.000Z'],
  // A time without a zone (Brave `page_age`, SearXNG): read as UTC, never as the machine's local time.
  ['2025-04-05T06:44:24', '2025-04-05T06:44:24.000Z'],
  ['2025-02-07T00:00:00', '2025-02-07T00:00:00.000Z'],
  ['2022-11-11 10:00', '2022-11-11T10:00:00.000Z'],
  // RFC 2822 (Tavily `published_date`): with a zone the instant; without one, read as UTC.
  ['Tue, 05 Mar 2024 10:00:00 GMT', '2024-03-05T10:00:00.000Z'],
  ['Sun, 14 Jul 2024 21:00:00 GMT', '2024-07-14T21:00:00.000Z'],
  ['Tue, 05 Mar 2024 10:00:00 +0200', '2024-03-05T08:00:00.000Z'],
  ['Tue, 05 Mar 2024 10:00:00 EST', '2024-03-05T15:00:00.000Z'],
  ['Tue, 05 Mar 2024 10:00:00', '2024-03-05T10:00:00.000Z'],
  ['Nov 11, 2022 10:00', '2022-11-11T10:00:00.000Z'],
  // Epochs.
  ['1700000000000', '2023-11-14T22:13:20.000Z'],
  [1700000000, '2023-11-14T22:13:20.000Z'],
  // Relative ages (Serper, SerpAPI, Brave `age`): minutes and hours are an instant counted back from now; days and
  // longer name a day, counted back in UTC, so no time of day is invented.
  ['an hour ago', '2026-05-10T11:00:00.000Z'],
  ['5 mins ago', '2026-05-10T11:55:00.000Z'],
  ['2 hours ago', '2026-05-10T10:00:00.000Z'],
  ['just now', '2026-05-10T12:00:00.000Z'],
  ['today', '2026-05-10'],
  ['yesterday', '2026-05-09'],
  ['1 day ago', '2026-05-09'],
  ['3 days ago', '2026-05-07'],
  ['2 weeks ago', '2026-04-26'],
  ['2 months ago', '2026-03-10'],
  ['a year ago', '2025-05-10'],
  // Not dates: dropped, never guessed.
  ['2024-13-45', undefined],
  ['2023-02-29', undefined],
  ['Feb 30, 2024', undefined],
  ['Foo 3, 2024', undefined],
  ['2024-03-05T25:00:00Z', undefined],
  ['11/12/2022', undefined],
  ['someday', undefined],
  ['', undefined],
  [null, undefined],
];

test('dates: every shape providers send becomes a calendar date or a UTC instant', () => {
  for (const [input, expected] of CASES) assert.equal(normaliseDate(input, NOW), expected, String(input));
});

test('dates near midnight do not move to the next or previous day', () => {
  const lateEvening = Date.parse('2026-05-10T23:30:00Z');
  assert.equal(normaliseDate('today', lateEvening), '2026-05-10');
  assert.equal(normaliseDate('yesterday', lateEvening), '2026-05-09');
  const justAfterMidnight = Date.parse('2026-05-10T00:10:00Z');
  assert.equal(normaliseDate('1 day ago', justAfterMidnight), '2026-05-09');
  assert.equal(normaliseDate('Mar 31, 2024', justAfterMidnight), '2024-03-31');
});

test('the child process really runs in its time zone', {
  skip: CHILD_ZONE === undefined ? 'runs only in the per-time-zone child processes of the test below' : false,
}, () => {
  const eastOfUtcMinutes = 0 - new Date('2022-11-11T12:00:00Z').getTimezoneOffset();
  assert.equal(eastOfUtcMinutes, TIME_ZONES[CHILD_ZONE!]);
});

test('dates read the same under every time zone', {
  skip: CHILD_ZONE !== undefined ? 'the parent runs this; a time-zone child runs only the cases' : false,
}, async () => {
  const file = fileURLToPath(import.meta.url);
  const failures: string[] = [];
  for (const zone of Object.keys(TIME_ZONES)) {
    const run = await runChild(file, zone);
    if (run.code !== 0) failures.push(`TZ=${zone}:\n${run.output}`);
  }
  assert.equal(failures.length, 0, failures.join('\n'));
});

async function runChild(file: string, zone: string): Promise<{ code: number | null; output: string }> {
  const run = await runNode(['--test', '--test-reporter=dot', file], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', TZ: zone, PERISCOPE_TEST_TIME_ZONE: zone },
  });
  return { code: run.code, output: run.stdout + run.stderr };
}
