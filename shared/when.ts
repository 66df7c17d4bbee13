import { ISO_TIMES, localTime, timeLocale } from './night-summary.js';

// One time and date format for the office screens, the operator's own: times as the
// morning summary shows them (shared/night-summary.ts localTime: the system's locale, 24-hour where
// the locale says so, the date when not today), dates in that same form ("24 Nov", with the year
// when it is not this year's). `locale` is for tests; the screens pass none and get the system's.

/** What the formatters are told: `now` (ms since the epoch) decides "today" and "this year"; `locale` a BCP 47 tag. */
export interface WhenOptions {
  now?: number;
  locale?: string;
}

/** whenAt's options: WhenOptions, and `seconds` to show them (`19:30:05`) where two moments may share a minute. */
export interface WhenAtOptions extends WhenOptions {
  seconds?: boolean;
}

export { localTime };

/**
 * An ISO 8601 time (or ms since the epoch) in the operator's format: `14:02` today, `24 Nov 14:02`
 * otherwise (locale's order and clock). `never` when absent; the text itself when unreadable.
 */
export function whenAt(at: string | number | null | undefined, opts: WhenAtOptions = {}): string {
  if (at === null || at === undefined || at === '') return 'never';
  const ms = typeof at === 'number' ? at : Date.parse(at);
  return Number.isNaN(ms) ? String(at) : localTime(ms, opts);
}

/**
 * An ISO 8601 time (or ms since the epoch) with its date and year always, and the time: `28 Nov
 * 2026, 23:17` (the locale's order and clock), for what is read later or elsewhere (a printed
 * page, a banner about a change) where "23:17" alone would not say which day. `never` when
 * absent; the text itself when unreadable.
 */
export function whenDated(at: string | number | null | undefined, opts: WhenOptions = {}): string {
  if (at === null || at === undefined || at === '') return 'never';
  const ms = typeof at === 'number' ? at : Date.parse(at);
  if (Number.isNaN(ms)) return String(at);
  return new Date(ms).toLocaleString(opts.locale, { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * A calendar date in the same form as localTime's: `24 Nov`, `24 Nov 2025` when not `now`'s year,
 * `Tuesday 24 Nov` with `weekday`. Takes YYYY-MM-DD (progress-records-interface.md §2 `date`,
 * read as that local day) or an ISO 8601 date-time (§2 asset stage dates and snapshots, read in
 * local time); anything else is returned as it is.
 */
export function localDate(date: string, opts: WhenOptions & { weekday?: boolean } = {}): string {
  const d = /^\d{4}-\d{2}-\d{2}$/.test(date) ? new Date(`${date}T12:00:00`) : new Date(date);
  if (Number.isNaN(d.getTime())) return date;
  const locale = opts.locale ?? timeLocale();
  if (locale === ISO_TIMES) {
    const p = (n: number) => String(n).padStart(2, '0');
    const ymd = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
    return opts.weekday ? `${d.toLocaleDateString('en', { weekday: 'long' })} ${ymd}` : ymd;
  }
  const otherYear = d.getFullYear() !== new Date(opts.now ?? Date.now()).getFullYear();
  return d.toLocaleDateString(locale, {
    ...(opts.weekday ? { weekday: 'long' } : {}),
    day: 'numeric',
    month: 'short',
    ...(otherYear ? { year: 'numeric' } : {}),
  });
}

/** A month (YYYY-MM) as `November 2026`, in the locale's words. */
export function localMonth(month: string, opts: WhenOptions = {}): string {
  return new Date(`${month}-01T12:00:00`).toLocaleDateString(opts.locale, { month: 'long', year: 'numeric' });
}
