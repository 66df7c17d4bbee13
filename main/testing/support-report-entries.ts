/**
 * The entries a support report's zip holds (main/support/support-report.ts), sorted: its README,
 * the settings without secrets, the queue's status and the night's summary (JSON and text), the
 * versions, and under `logs/` each of the support log files named in `logs` (file names).
 */
export function supportReportEntries(logs: readonly string[]): string[] {
  const fixed = ['README.txt', 'settings.json', 'status.json', 'summary.json', 'summary.txt', 'versions.json'];
  return [...fixed, ...logs.map((l) => `logs/${l}`)].sort();
}
