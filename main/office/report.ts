import { stringify } from 'csv-stringify/sync';
import type { ProgressEntryView } from '../../shared/ipc.js';

/** The header row of the month report, in column order. */
export const REPORT_COLUMNS = ['Date', 'Status', 'Details', 'Entry id'] as const;

/**
 * A month's progress entries (progress-records-interface.md §2) as CSV for the weekly site meeting
 * (issue 20 #7): RFC 4180 (comma, CRLF between records, a field quoted when it holds a comma,
 * quote or line break, quotes doubled), UTF-8 with a header row. A byte order mark leads, so
 * that spreadsheet programs read the UTF-8 (en dashes, accents) as UTF-8; RFC 4180 parsers skip
 * it as part of no field only if they know it, which is said in the README. `month` YYYY-MM;
 * entries of other months are left out; ordered by date, then as given.
 */
export function monthReportCsv(month: string, entries: readonly ProgressEntryView[]): string {
  const rows = entries
    .filter((e) => e.date.startsWith(`${month}-`))
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.date.localeCompare(b.e.date) || a.i - b.i)
    .map(({ e }) => [e.date, e.status, e.details, e.id]);
  return stringify(rows, { header: true, columns: [...REPORT_COLUMNS], record_delimiter: 'windows', bom: true });
}

/** The file name the report is offered under: `progress-YYYY-MM.csv`. */
export const monthReportName = (month: string) => `progress-${month}.csv`;
