/**
 * Whether `text` is a calendar day written `YYYY-MM-DD` that exists: `2025-02-28` is, `2025-02-30` is not
 * (Date.parse rolls it over to March, so the day must read back as given). One rule for the tools' `after`/`before`,
 * `periscope status --day` and the usage reader.
 */
export function isCalendarDay(text: string): boolean {
  const time = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(text);
}
