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
  return [
    ...Array<null>(blanks).fill(null),
    ...Array.from({ length: days }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`),
  ];
}

/** The month (YYYY-MM) `by` months after `month`. */
export function shiftMonth(month: string, by: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const d = new Date(y, m - 1 + by, 1);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
}

/** "November 2026" for 2026-11, in the person's language (shared/when.ts localMonth). */
export const monthTitle = (month: string) => localMonth(month);

/** The statuses the office records with (progress-records-interface.md §2), listed first. */
const KNOWN_STATUSES = ['In Progress', 'Completed'];

/**
 * Every status among `entries`, the known ones first (In Progress, Completed, when present or
 * `withKnown`), then the others in alphabetical order, each once. Never throws.
 */
export function statusesOf(entries: readonly { status: string }[], withKnown = false): string[] {
  const seen = new Set(entries.map((e) => e.status));
  const known = KNOWN_STATUSES.filter((s) => withKnown || seen.has(s));
  const others = [...seen].filter((s) => !KNOWN_STATUSES.includes(s)).sort((a, b) => a.localeCompare(b));
  return [...known, ...others];
}

/**
 * What the office screens say when the progress service cannot be reached and the copy kept is
 * shown: "No connection to the progress service: showing the copy from 14:02", the
 * time in the office's one format (shared/when.ts), so a copy from yesterday says its date.
 */
export const offlineSentence = (asOf: string) =>
  `No connection to the progress service: showing the copy from ${whenAt(asOf)}`;

/** YYYY-MM-DD of a date-only UTC time (ms); the calendar's days carry no zone. */
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The day a key moves the calendar's focus to from `day` (YYYY-MM-DD), after WAI-ARIA's date
 * grid: Left/Right a day, Up/Down a week, Home/End the week's Monday or Sunday,
 * Page Up/Down a month (with `shift`, a year), kept on the same day of the month or its last
 * day. Null for any other key. Computed on dates alone (UTC midnights), so no clock change shifts it.
 */
export function dayForKey(day: string, key: string, shift = false): string | null {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const at = Date.UTC(y, m - 1, d);
  const DAY = 86_400_000;
  const weekday = (new Date(at).getUTCDay() + 6) % 7; // Monday 0
  const byDays: Record<string, number> = {
    ArrowLeft: -1,
    ArrowRight: 1,
    ArrowUp: -7,
    ArrowDown: 7,
    Home: -weekday,
    End: 6 - weekday,
  };
  if (key in byDays) return isoDay(at + byDays[key]! * DAY);
  if (key !== 'PageUp' && key !== 'PageDown') return null;
  const months = (key === 'PageUp' ? -1 : 1) * (shift ? 12 : 1);
  const last = new Date(Date.UTC(y, m - 1 + months + 1, 0)).getUTCDate();
  return isoDay(Date.UTC(y, m - 1 + months, Math.min(d, last)));
}
