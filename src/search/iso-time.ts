const DAY_MS = 86_400_000;

const pad2 = (value: number) => (value < 10 ? `0${value}` : String(value));
const pad3 = (value: number) => (value < 10 ? `00${value}` : value < 100 ? `0${value}` : String(value));

/**
 * `new Date(ms).toISOString()` (`YYYY-MM-DDTHH:mm:ss.sssZ`), computed in JavaScript: the built-in costs about 2 µs
 * a call on Node 24, which made dates the largest part of the chain's per-result work. Years outside 0–9999 (and
 * invalid times) go to the built-in, which writes or rejects them its own way.
 */
export function toIsoUtc(ms: number): string {
  if (!Number.isInteger(ms) || ms < -62_167_219_200_000 || ms > 253_402_300_799_999)
    return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // Days since 1970-01-01 → civil date (H. Hinnant's algorithm, proleptic Gregorian, eras of 400 years).
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  const yyyy = year < 1000 ? String(year).padStart(4, '0') : String(year);
  return `${yyyy}-${pad2(month)}-${pad2(day)}T${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(millis)}Z`;
}
