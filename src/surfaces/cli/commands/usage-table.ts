import type { UsageCounts, UsageReport } from '../../../index.ts';

/** `RATE_LIMITED 2, TIMEOUT 1` */
function errorList(errors: UsageCounts['errors']): string {
  return (
    Object.entries(errors)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([code, count]) => `${code} ${count}`)
      .join(', ') || '–'
  );
}

/** The day's usage as lines: a heading naming the day and the store, then one row per agent, tool and provider. */
export function usageLines(report: UsageReport, where: string): string[] {
  const heading = `usage on ${report.day} (UTC; store ${where})`;
  if (report.rows.length === 0) return [`${heading}: no calls`];
  const rows = [
    ['agent', 'tool', 'provider', 'calls', 'cached', 'credits', 'errors'],
    ...report.rows.map((row) => [
      row.agent,
      row.tool,
      row.provider,
      String(row.calls),
      String(row.cacheHits),
      String(row.credits),
      errorList(row.errors),
    ]),
  ];
  const { totals } = report;
  rows.push([
    'total',
    '',
    '',
    String(totals.calls),
    String(totals.cacheHits),
    String(totals.credits),
    errorList(totals.errors),
  ]);
  const widths = (rows[0] ?? []).map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? '').length)),
  );
  return [
    `${heading}:`,
    ...rows.map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    ),
  ];
}
