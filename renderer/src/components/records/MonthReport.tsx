import { useState } from 'react';
import type { ProgressEntryView } from '../../../../shared/ipc.js';
import { api, unwrap } from '../../api.js';
import { localDate, whenAt } from '../../../../shared/when.js';
import { monthTitle } from './calendar.js';

/** The calendar's filter as the printed month names it: `status` 'all' or one status; `search` trimmed text, '' for none. */
export interface ReportFilter {
  status: string;
  search: string;
}

/** The filter in words for the printed page's heading: "All entries", "Status Completed, details containing “duct”". */
export function filterWords({ status, search }: ReportFilter): string {
  const parts = [status === 'all' ? '' : `Status ${status}`, search ? `details containing “${search}”` : ''].filter(
    Boolean,
  );
  return parts.length ? `Only entries shown: ${parts.join(', ')}` : 'All entries';
}

/**
 * The month report for the weekly site meeting: "Export month (CSV)" saves the
 * month's entries as CSV (made by the service: RFC 4180, UTF-8, header row, every entry of the
 * month), and "Print month" prints the page below, which only print media shows (styles.css
 * `@media print`): the entries the calendar shows (`entries`, its filter applied, named in the
 * heading as `filter`), by date in a table, under the project (`project`, its id: neither
 * interface gives a project a name), when the list was read (`asOf`, ISO 8601) and, in the page
 * margin, "Page N of M". In the app, print offers "Save as PDF". An export that fails says so
 * beside the buttons; one in flight says "Exporting…".
 */
export function MonthReport(props: {
  month: string;
  entries: ProgressEntryView[];
  filter: ReportFilter;
  project: string;
  asOf: string | null;
}) {
  const { month, entries, filter, project, asOf } = props;
  const rows = entries.filter((e) => e.date.startsWith(`${month}-`)).sort((a, b) => a.date.localeCompare(b.date));
  const [problem, setProblem] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);
  const exportCsv = async () => {
    setProblem(null);
    setExporting(true);
    let file: { fileName: string; csv: string };
    try {
      file = await unwrap(api['progress.report']({ month }));
    } catch (err) {
      setProblem(`The month could not be exported: ${(err as Error).message}`);
      return;
    } finally {
      setExporting(false);
    }
    const { fileName, csv } = file;
    const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = fileName;
    link.click();
    URL.revokeObjectURL(url);
  };
  return (
    <>
      <div className="report-actions">
        <button onClick={() => void exportCsv()} disabled={exporting} aria-busy={exporting}>
          {exporting ? 'Exporting…' : 'Export month (CSV)'}
        </button>
        <button onClick={() => window.print()}>Print month</button>
        {problem && (
          <span className="error" role="alert">
            {problem}
          </span>
        )}
      </div>
      <section className="month-report" aria-label={`Progress report, ${monthTitle(month)}`} data-testid="month-report">
        {/* The printed page's only heading of its level: the app's own h1 is not printed. */}
        <h1>Progress report — {monthTitle(month)}</h1>
        <p data-testid="report-about">
          {project ? `Project ${project} · ` : ''}
          {filterWords(filter)} · {rows.length} {rows.length === 1 ? 'entry' : 'entries'}
          {asOf ? ` · as read ${whenAt(asOf)}` : ''}
        </p>
        <table>
          <thead>
            <tr>
              <th scope="col" className="nowrap">
                Date
              </th>
              <th scope="col" className="nowrap">
                Status
              </th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.id} data-testid="report-row">
                <td className="nowrap">{localDate(e.date)}</td>
                <td className="nowrap">{e.status}</td>
                <td className="details">{e.details}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}
