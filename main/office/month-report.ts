import type { ProgressEntryView } from '../../shared/ipc.js';
import { spreadsheetCsv } from '../../shared/spreadsheet.js';

/** The header row of the month report, in column order. */
const REPORT_COLUMNS = ['Date', 'Status', 'Details', 'Entry id'] as const;

/**
 * A month's progress entries (progress-records-interface.md §2) as CSV for the weekly site meeting:
 * RFC 4180, UTF-8 with a byte order mark and a header row, every text cell safe to open in a
 * spreadsheet program (shared/spreadsheet.ts: details beginning `=`, `+`, `-`, `@` or a tab get a
 * leading apostrophe). `month` YYYY-MM; entries of other months are left out; ordered by date,
 * then as given. Never throws.
 */
export function monthReportCsv(month: string, entries: readonly ProgressEntryView[]): string {
  const rows = entries
    .filter((e) => e.date.startsWith(`${month}-`))
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.date.localeCompare(b.e.date) || a.i - b.i)
    .map(({ e }) => [e.date, e.status, e.details, e.id]);
  return spreadsheetCsv(REPORT_COLUMNS, rows);
}

/** The file name the report is offered under: `progress-YYYY-MM.csv`. */
export const monthReportName = (month: string) => `progress-${month}.csv`;
