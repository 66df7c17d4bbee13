import type { ProgressEntryView } from '../../../../shared/ipc.js';
import { useApp } from '../../store.js';
import { localDate, whenDated } from '../../../../shared/when.js';
import { monthTitle } from './calendar.js';

/** The calendar's filter as the printed month names it: `status` 'all' or one status; `search` trimmed text, '' for none. */
interface ReportFilter {
  status: string;
  search: string;
}

/** The filter in words for the printed page's heading: "All entries", "Status Completed, details containing “duct”". */
function filterWords({ status, search }: ReportFilter): string {
  const parts = [status === 'all' ? '' : `Status ${status}`, search ? `details containing “${search}”` : ''].filter(
    Boolean,
  );
  return parts.length ? `Only entries shown: ${parts.join(', ')}` : 'All entries';
}

/**
 * The month report for the weekly site meeting: "Export month (CSV)" saves the shown
 * month's entries as CSV (made by the service: RFC 4180, UTF-8, header row, every entry of the
 * month), and "Print month" prints the page below, which only print media shows (styles.css
 * `@media print`): the entries the calendar shows (`entries`, its filter applied, named in the
 * heading), by date in a table, under the project (its name from the settings, with its id; the
 * id alone when no name was given: neither interface gives a project a name), when the list was
 * read (said with its date) and, in the page margin, "Page N of M". In the app, print offers
 * "Save as PDF". An export that fails says so beside the buttons; one in flight says "Exporting…".
 */
export function MonthReport({ entries }: { entries: ProgressEntryView[] }) {
  const month = useApp((s) => s.progressMonth);
  const status = useApp((s) => s.progressStatus);
  const search = useApp((s) => s.progressSearch.trim());
  const project = useApp((s) => s.progressFresh?.project ?? '');
  const projectName = useApp((s) => s.progressFresh?.projectName ?? '');
  const asOf = useApp((s) => s.progressFresh?.asOf ?? null);
  const exporting = useApp((s) => s.reportExporting);
  const problem = useApp((s) => s.reportProblem);
  const exportMonth = useApp((s) => s.exportMonth);
  const filter = { status, search };
  const rows = entries.filter((e) => e.date.startsWith(`${month}-`)).sort((a, b) => a.date.localeCompare(b.date));
  const exportCsv = async () => {
    const file = await exportMonth();
    if (!file) return;
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
          {projectName ? `${projectName} (project ${project}) · ` : project ? `Project ${project} · ` : ''}
          {filterWords(filter)} · {rows.length} {rows.length === 1 ? 'entry' : 'entries'}
          {asOf ? ` · as read ${whenDated(asOf)}` : ''}
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
