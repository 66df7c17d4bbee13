import { useState } from 'react';
import type { ProgressEntryView } from '../../../../shared/ipc.js';
import { api, unwrap } from '../../api.js';
import { localDate, whenAt } from '../../../../shared/when.js';
import { monthTitle } from './calendar.js';

/**
 * The month report for the weekly site meeting: "Export month (CSV)" saves the
 * month's entries as CSV (made by the service: RFC 4180, UTF-8, header row), and "Print month"
 * prints the page below, which only print media shows (styles.css `@media print`): the month's
 * entries by date in a table, with when it was read. In the app, print offers "Save as PDF".
 * An export that fails says so beside the buttons.
 */
export function MonthReport({ month, entries, asOf }: { month: string; entries: ProgressEntryView[]; asOf: string | null }) {
  const rows = entries.filter((e) => e.date.startsWith(`${month}-`)).sort((a, b) => a.date.localeCompare(b.date));
  const [problem, setProblem] = useState<string | null>(null);
  const exportCsv = async () => {
    setProblem(null);
    let file: { fileName: string; csv: string };
    try {
      file = await unwrap(api['progress.report']({ month }));
    } catch (err) {
      setProblem(`The month could not be exported: ${(err as Error).message}`);
      return;
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
        <button onClick={() => void exportCsv()}>Export month (CSV)</button>
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
        <p>
          {rows.length} {rows.length === 1 ? 'entry' : 'entries'}
          {asOf ? `, as read ${whenAt(asOf)}` : ''}
        </p>
        <table>
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Status</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.id} data-testid="report-row">
                <td>{localDate(e.date)}</td>
                <td>{e.status}</td>
                <td className="details">{e.details}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}
