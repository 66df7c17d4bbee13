import { localMonth, whenAt } from '../../../../shared/when.js';

// Calendar arithmetic of the Progress workspace, in the person's local time: progress entries
// carry a date without a zone (progress-records-interface.md §2, YYYY-MM-DD).

/** The day of `d` in local time, YYYY-MM-DD. */
export function localDay(d = new Date()): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The days of a month (YYYY-MM) as a calendar grid, Monday first: YYYY-MM-DD, with blanks (null) before the 1st. */
export function monthGrid(month: string): (string | null)[] {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const first = new Date(y, m - 1, 1);
  const days = new Date(y, m, 0).getDate();
  const blanks = (first.getDay() + 6) % 7;
  return [...Array<null>(blanks).fill(null), ...Array.from({ length: days }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`)];
}

/** The month (YYYY-MM) `by` months after `month`. */
export function shiftMonth(month: string, by: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const d = new Date(y, m - 1 + by, 1);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
}

/** "November 2026" for 2026-11, in the person's language (shared/when.ts localMonth). */
export const monthTitle = (month: string) => localMonth(month);

/** The CSS class of a status badge. */
export const statusClass = (status: string) => (status === 'Completed' ? 'completed' : 'in-progress');

/**
 * What the office screens say when the progress service cannot be reached and the copy kept is
 * shown (issue 20 #5): "No connection to the progress service: showing the copy from 14:02", the
 * time in the office's one format (shared/when.ts), so a copy from yesterday says its date.
 */
export const offlineSentence = (asOf: string) => `No connection to the progress service: showing the copy from ${whenAt(asOf)}`;
