// Providers' published dates as ISO 8601, read exactly and never through the machine's time zone: `Date.parse` reads
// a date or time without a zone as local time, so "Nov 11, 2022" became 2022-11-10T23:00:00Z in Berlin. Every shape
// below is parsed by hand; anything else is dropped rather than guessed.

import { cleanText } from './normalise-text.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** `2024-03-05`, `2024-03-05T10:00`, `2024-03-05 10:00:00.123+02:00`, `…Z`. */
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
/** `[Tue, ]05 Mar 2024[ 10:00[:00][ GMT|+0200]]` (RFC 2822) and `11 November 2022`. */
const DAY_MONTH_YEAR = /^(?:[a-z]{3,9},?\s+)?(\d{1,2})\s+([a-z]{3,9})\.?,?\s+(\d{4})(?:,?\s+(.+))?$/i;
/** `Nov 11, 2022`, `November 11 2022`, `Tue, Nov 11, 2022[ 10:00]`. */
const MONTH_DAY_YEAR = /^(?:[a-z]{3,9},?\s+)?([a-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{4})(?:,?\s+(.+))?$/i;
/** The time after a month-name date: `10:00`, `10:00:00`, with an optional zone. */
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*(Z|UTC|UT|GMT|[A-Z]{3}|[+-]\d{2}:?\d{2}))?$/i;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
/** RFC 2822's named zones, in minutes east of UTC. */
const ZONE_MINUTES: Record<string, number> = {
  Z: 0,
  UT: 0,
  UTC: 0,
  GMT: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
};

const RELATIVE =
  /^(?:about\s+)?(\d+|an?|one)\s+(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\s+ago$/i;

/**
 * A provider's date as ISO 8601, the same on every machine:
 * - a calendar date (`2024-03-05`, `Nov 11, 2022`, `11 Nov 2022`) stays a date, `YYYY-MM-DD`;
 * - a date with a time becomes a UTC instant `YYYY-MM-DDTHH:mm:ss.sssZ`; a time without a zone (Brave's
 *   `page_age`, `2022-11-11 10:00`) is read as UTC, the one reading that does not depend on where Periscope runs;
 * - epoch seconds or milliseconds become an instant;
 * - a relative age counts back from `nowMs`: seconds, minutes and hours give an instant; `today`, `yesterday`,
 *   days, weeks, months and years give the UTC calendar day, since "3 days ago" names a day, not a time of day.
 * Undefined for anything else, and for dates that do not exist (`Feb 30`).
 */
export function normaliseDate(value: unknown, nowMs = Date.now()): string | undefined {
  if (typeof value === 'number') return fromEpoch(value);
  if (typeof value !== 'string') return undefined;
  const text = cleanText(value);
  if (text === '') return undefined;
  if (/^\d{9,13}$/.test(text)) return fromEpoch(Number(text));
  return fromIso(text) ?? fromMonthName(text) ?? fromRelative(text, nowMs);
}

function fromIso(text: string): string | undefined {
  const match = ISO.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  const date = { year: Number(year), month: Number(month), day: Number(day) };
  if (hour === undefined) return calendarDate(date);
  const offsetMinutes = zone === undefined ? 0 : zoneMinutes(zone);
  if (offsetMinutes === undefined) return undefined;
  const time = {
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second ?? 0),
    ms: Number((fraction ?? '').slice(0, 3).padEnd(3, '0')),
  };
  return instant(date, time, offsetMinutes);
}

function fromMonthName(text: string): string | undefined {
  const dayFirst = DAY_MONTH_YEAR.exec(text);
  const monthFirst = dayFirst ? undefined : MONTH_DAY_YEAR.exec(text);
  if (!dayFirst && !monthFirst) return undefined;
  const [dayText, monthText, yearText, timeText] = dayFirst
    ? [dayFirst[1], dayFirst[2], dayFirst[3], dayFirst[4]]
    : [monthFirst![2], monthFirst![1], monthFirst![3], monthFirst![4]];
  const month = monthNumber(monthText!);
  if (month === undefined) return undefined;
  const date = { year: Number(yearText), month, day: Number(dayText) };
  if (timeText === undefined) return calendarDate(date);
  const time = TIME.exec(timeText);
  if (!time) return undefined;
  const offsetMinutes = time[4] === undefined ? 0 : zoneMinutes(time[4]);
  if (offsetMinutes === undefined) return undefined;
  return instant(
    date,
    { hour: Number(time[1]), minute: Number(time[2]), second: Number(time[3] ?? 0), ms: 0 },
    offsetMinutes,
  );
}

function fromRelative(text: string, nowMs: number): string | undefined {
  const lower = text.toLowerCase();
  if (lower === 'just now') return new Date(nowMs).toISOString();
  if (lower === 'today') return utcDay(nowMs, 0, 0);
  if (lower === 'yesterday') return utcDay(nowMs, 1, 0);
  const match = RELATIVE.exec(text);
  if (!match) return undefined;
  const amount = /^\d+$/.test(match[1]!) ? Number(match[1]) : 1;
  const unit = match[2]!.toLowerCase();
  if (unit.startsWith('s')) return new Date(nowMs - amount * 1000).toISOString();
  if (unit.startsWith('mi')) return new Date(nowMs - amount * MINUTE_MS).toISOString();
  if (unit.startsWith('h')) return new Date(nowMs - amount * HOUR_MS).toISOString();
  if (unit.startsWith('d')) return utcDay(nowMs, amount, 0);
  if (unit.startsWith('w')) return utcDay(nowMs, amount * 7, 0);
  if (unit.startsWith('mo')) return utcDay(nowMs, 0, amount);
  return utcDay(nowMs, 0, amount * 12);
}

interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

interface TimeOfDay {
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

/** `YYYY-MM-DD` when the date exists (a four-digit year, month 1–12, the day within that month, Feb 29 only in leap years). */
function calendarDate({ year, month, day }: CalendarDate): string | undefined {
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return `${String(year).padStart(4, '0')}-${pad(month)}-${pad(day)}`;
}

/** The UTC instant of a wall-clock time `offsetMinutes` east of UTC; undefined for a date or time that does not exist. */
function instant(date: CalendarDate, time: TimeOfDay, offsetMinutes: number): string | undefined {
  if (calendarDate(date) === undefined) return undefined;
  if (time.hour > 23 || time.minute > 59 || time.second > 59) return undefined;
  const wallMs = Date.UTC(date.year, date.month - 1, date.day, time.hour, time.minute, time.second, time.ms);
  return new Date(wallMs - offsetMinutes * MINUTE_MS).toISOString();
}

/** The UTC calendar day `days` days and `months` months before `nowMs`; a day past the month's end is clamped to it. */
function utcDay(nowMs: number, days: number, months: number): string {
  const now = new Date(nowMs - days * DAY_MS);
  const monthIndex = now.getUTCFullYear() * 12 + now.getUTCMonth() - months;
  const year = Math.floor(monthIndex / 12);
  const month = (monthIndex % 12) + 1;
  return calendarDate({ year, month, day: Math.min(now.getUTCDate(), daysInMonth(year, month)) })!;
}

/** Minutes east of UTC for `Z`, `GMT`, `EST`…, `+02:00`, `+0200` or `+02`; undefined for an unknown name. */
function zoneMinutes(zone: string): number | undefined {
  const named = ZONE_MINUTES[zone.toUpperCase()];
  if (named !== undefined) return named;
  const match = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!match) return undefined;
  const hours = Number(match[2]);
  const minutes = Number(match[3] ?? 0);
  if (hours > 14 || minutes > 59) return undefined;
  return (match[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** 1–12 for a month's English name, its three-letter abbreviation, or `Sept`. */
function monthNumber(name: string): number | undefined {
  const lower = name.toLowerCase();
  const index = lower.length === 3 ? MONTHS.indexOf(lower) : MONTH_NAMES.indexOf(lower);
  if (index >= 0) return index + 1;
  return lower === 'sept' ? 9 : undefined;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

function fromEpoch(value: number): string | undefined {
  if (!Number.isFinite(value) || value <= 0) return undefined;
  const ms = value < 1e11 ? value * 1000 : value;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
