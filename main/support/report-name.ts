import { isoWithOffset } from './log-file.js';

/**
 * The report's default file name, by the local time it is made:
 * `capture-uploader-report-2026-11-27-101503.zip`. `now` ms since 1970.
 */
export function defaultReportName(now = Date.now()): string {
  return `capture-uploader-report-${isoWithOffset(now).slice(0, 19).replace('T', '-').replace(/:/g, '')}.zip`;
}
