/**
 * The support report zip seen from a test (docs/decisions/0019-support-log-report.md). Test code only.
 */

/**
 * The entry names of a whole support report, sorted: README.txt, settings.json, status.json,
 * summary.json, summary.txt, versions.json, and `logs/<name>` for each of `logs` (the file names in
 * the support log folder when the report was written).
 */
export function reportEntryNames(logs: string[]): string[] {
  const fixed = ['README.txt', 'settings.json', 'status.json', 'summary.json', 'summary.txt', 'versions.json'];
  return [...fixed, ...logs.map((l) => `logs/${l}`)].sort();
}
