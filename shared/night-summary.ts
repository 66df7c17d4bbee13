import { plainCause } from './causes.js';
import { formatBytes, formatEta } from './format.js';

/**
 * The morning summary: the night's story in a few lines, built from the queue's
 * activity log (main/queue/activity.ts; shared/ipc.ts ActivityView has the same fields) and what
 * still needs a person. Shown on the queue screen and printed by `capture-uploader log --summary`
 * (text, or this object as JSON). Times ms since epoch; bytes; durations ms.
 */
export interface NightSummary {
  /** The first upload started (or the first line of the period); null when nothing happened. */
  startedAt: number | null;
  /** The last file completed, when nothing is left to move by itself; null while work is left or nothing completed. */
  finishedAt: number | null;
  /** From start to finish (or to the last completion while work is left); 0 when the clock was changed. */
  durationMs: number;
  /**
   * The log's times went back during the period (a line dated more than 5 min before one written
   * earlier): the computer's clock was changed, so no duration is told (never a negative one).
   */
  clockChanged: boolean;
  /** Lines dated more than 5 min after `now` (the clock was changed since they were written): left out of the summary. */
  datedAhead: number;
  captures: number;
  files: number;
  bytes: number;
  /** The whole hour from the start with the fewest bytes completed (only when the night spans two hours or more). */
  slowestHour: { from: number; bytes: number } | null;
  /**
   * The longest outage, with its cause in plain words: as the running engine saw and showed it
   * (activity lines `outage` … `outage-over`: the same start and cause as the screen), and the
   * longest stretch of registrations waiting for the service (`registration-retry` …
   * `registered`); in a log without `outage` lines, stretches of file retries (`retry-scheduled`
   * … `completed`) stand in for the engine's outages.
   */
  longestOutage: { from: number; to: number; ms: number; cause: string } | null;
  /** What needs a person: each with its one-line cause and action. */
  needsYou: { subject: string; cause: string; action: string }[];
  /**
   * Captures uploaded (or uploading) with a warning a person should look at (a recording cut
   * short, a lone lens, …; shared/capture-warnings.ts): each with its warnings' sentences.
   */
  warned: { subject: string; warnings: string[] }[];
  /** Captures the capture plan placed and queued with no click in the period (activity lines `planned`); absent: 0. */
  planned?: number;
}

/** One activity line as the summary reads it (ActivityEntry / ActivityView): `at` ISO 8601. */
export interface SummaryEntry {
  at: string;
  fileId: number | null;
  captureRow: number | null;
  kind: string;
  message: string;
}

/** How far a line's time may go back from an earlier line's, or ahead of now, before the clock is taken to have changed. */
const CLOCK_SLACK_MS = 5 * 60_000;

/**
 * The summary of `entries` (oldest first, in the order they were written). `sizeOf` gives a
 * completed file's size (bytes; undefined when it left the queue: it then counts 0 bytes);
 * `needsYou` what waits for a person now; `workLeft` whether files still move by themselves (then
 * there is no finish yet); `now` (ms since 1970): lines dated after it are left out and counted
 * (`datedAhead`).
 */
export function nightSummary(
  all: readonly SummaryEntry[],
  sizeOf: (fileId: number) => number | undefined,
  needsYou: NightSummary['needsYou'],
  workLeft: boolean,
  warned: NightSummary['warned'] = [],
  now: number = Date.now(),
): NightSummary {
  const t = (e: SummaryEntry) => Date.parse(e.at);
  const entries = all.filter((e) => t(e) <= now + CLOCK_SLACK_MS);
  let latest = -Infinity;
  let clockChanged = false;
  for (const e of entries) {
    if (t(e) < latest - CLOCK_SLACK_MS) clockChanged = true;
    latest = Math.max(latest, t(e));
  }
  const started = entries.find((e) => e.kind === 'started') ?? entries[0];
  const done = entries.filter((e) => e.kind === 'completed' && e.fileId !== null);
  const startedAt = started ? t(started) : null;
  const lastDone = done.length ? t(done.at(-1)!) : null;
  const finishedAt = !workLeft && lastDone !== null ? lastDone : null;
  const bytes = done.reduce((n, e) => n + (sizeOf(e.fileId!) ?? 0), 0);

  let slowestHour: NightSummary['slowestHour'] = null;
  if (!clockChanged && startedAt !== null && lastDone !== null && lastDone - startedAt >= 2 * 3_600_000) {
    const hours = Math.floor((lastDone - startedAt) / 3_600_000);
    const per = new Array<number>(hours).fill(0);
    for (const e of done) {
      const i = Math.floor((t(e) - startedAt) / 3_600_000);
      if (i < hours) per[i]! += sizeOf(e.fileId!) ?? 0;
    }
    const i = per.indexOf(Math.min(...per));
    slowestHour = { from: startedAt + i * 3_600_000, bytes: per[i]! };
  }

  // The outages the running engine saw are in the log with the start and cause the screen
  // showed (`outage` … `outage-over`, main/engine/outages/outage-record.ts): those are the night's storage
  // and gateway outages. A log without them (written before the engine kept them) tells them by
  // the files' scheduled retries. Registrations waiting for the service are told by their own
  // retries either way: the engine's outage is about parts.
  const engineSaw = entries.some((e) => e.kind === 'outage');
  let longestOutage: NightSummary['longestOutage'] = null;
  const close = (open: { from: number; cause: string } | null, to: number) => {
    if (!open || clockChanged) return; // a changed clock makes every stretch's length unknown
    const ms = to - open.from;
    if (!longestOutage || ms > longestOutage.ms) longestOutage = { from: open.from, to, ms, cause: open.cause };
  };
  let parts: { from: number; cause: string } | null = null;
  let registrations: { from: number; cause: string } | null = null;
  for (const e of entries) {
    if (engineSaw ? e.kind === 'outage' : e.kind === 'retry-scheduled') {
      parts ??= { from: t(e), cause: plainCause(e.message) };
      // Registrations waiting while the engine's outage is on the screen wait for that outage:
      // one outage, read with the cause the screen gave it (docs/outage-words.md).
      if (engineSaw && registrations) registrations.cause = parts.cause;
    } else if (e.kind === 'registration-retry')
      registrations ??= { from: t(e), cause: engineSaw && parts ? parts.cause : plainCause(e.message) };
    else if (engineSaw ? e.kind === 'outage-over' : e.kind === 'completed') {
      close(parts, t(e));
      parts = null;
    }
    if (e.kind === 'registered') {
      close(registrations, t(e));
      registrations = null;
    }
  }
  return {
    startedAt,
    finishedAt,
    durationMs: !clockChanged && startedAt !== null && lastDone !== null ? lastDone - startedAt : 0,
    clockChanged,
    datedAhead: all.length - entries.length,
    captures: entries.filter((e) => e.kind === 'capture-completed').length,
    files: done.length,
    bytes,
    slowestHour,
    longestOutage,
    needsYou,
    warned,
    planned: entries.filter((e) => e.kind === 'planned').length,
  };
}

/**
 * A time (ms since the epoch) as the system's locale shows it in its own short form (`19:30` in
 * en-GB, `7:30 PM` in en-US: 24-hour where the locale says so), with the date before it when it
 * is not today (`now`'s local date): one time format for the summary, the screens and the CLI
 * `seconds` adds the seconds (`19:30:05`, `7:30:05 PM`) where two moments may
 * share a minute (recording times in the registration table, the activity log); `locale` is a
 * BCP 47 tag for tests, the screens pass none and get the system's.
 */
export function localTime(ms: number, opts: { now?: number; locale?: string; seconds?: boolean } = {}): string {
  const d = new Date(ms);
  const locale = opts.locale ?? processTimeLocale;
  const today = d.toDateString() === new Date(opts.now ?? Date.now()).toDateString();
  if (locale === ISO_TIMES) {
    const p = (n: number) => String(n).padStart(2, '0');
    const time = `${p(d.getHours())}:${p(d.getMinutes())}${opts.seconds ? `:${p(d.getSeconds())}` : ''}`;
    return today ? time : `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${time}`;
  }
  // timeStyle keeps the locale's own clock (no forced leading zero, no forced 24 hours).
  const time = formatter(locale, opts.seconds ? 'medium' : 'short').format(d);
  return today ? time : `${formatter(locale, 'day').format(d)} ${time}`;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
/**
 * The formatter localTime writes with: what toLocaleTimeString (`medium`, `short`: timeStyle) and
 * toLocaleDateString (`day`: day and short month) would make, made once per locale, form and time
 * zone. Each of those calls builds a formatter of its own, about 0.3 ms: a registration table of
 * a hundred rows spent most of its first render there. The zone is in the key because a formatter
 * keeps the one it was made in (Node takes TZ from the environment, which tests change).
 */
function formatter(locale: string | undefined, form: 'medium' | 'short' | 'day'): Intl.DateTimeFormat {
  const zone = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.TZ ?? '';
  const key = `${locale ?? ''}|${form}|${zone}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, form === 'day' ? { day: 'numeric', month: 'short' } : { timeStyle: form });
    formatters.set(key, f);
  }
  return f;
}

/**
 * The `locale` that writes times as ISO 8601 does, on a 24-hour clock (`00:03`, `2026-11-24 00:03`,
 * local time): for a process with no locale set, where the runtime's own default (en-US) would
 * write `12:03 AM`.
 */
export const ISO_TIMES = 'iso';

/** The locale of this process's times when a call names none (setTimeLocale); undefined: the runtime's. */
let processTimeLocale: string | undefined;

/**
 * Sets the locale this process writes times in when a call names none: a BCP 47 tag, ISO_TIMES,
 * or undefined for the runtime's default. The CLI sets it from the environment at start
 * (main/cli/locale.ts); the window never does, and follows the page's locale.
 */
export function setTimeLocale(locale: string | undefined): void {
  processTimeLocale = locale;
}

/** The locale set by setTimeLocale (undefined: the runtime's default). */
export const timeLocale = (): string | undefined => processTimeLocale;

/** The summary as lines a person reads in the morning ("Finished at 03:12 after 7 h 40 min: 48 captures, 312 GiB."). */
export function summaryLines(s: NightSummary, opts: { now?: number; locale?: string } = {}): string[] {
  const at = (ms: number) => localTime(ms, opts);
  const ahead =
    s.datedAhead > 0
      ? [
          `${s.datedAhead} line${s.datedAhead === 1 ? ' of the log is' : 's of the log are'} dated after now (the computer's clock was changed since they were written), not counted here.`,
        ]
      : [];
  if (s.startedAt === null) return ['Nothing happened in this period.', ...ahead];
  const lines: string[] = [];
  const what = `${s.captures} capture${s.captures === 1 ? '' : 's'} (${s.files} file${s.files === 1 ? '' : 's'}), ${formatBytes(s.bytes)}`;
  const took = s.clockChanged ? '' : ` after ${formatEta(s.durationMs / 1000)}`;
  lines.push(
    s.finishedAt !== null
      ? `Started at ${at(s.startedAt)}; finished at ${at(s.finishedAt)}${took}: ${what} uploaded.`
      : `Started at ${at(s.startedAt)}; still going: ${what} uploaded so far.`,
  );
  if (s.clockChanged)
    lines.push(
      "The computer's clock was changed during this batch: the times above are as it read them, and how long it took is not known.",
    );
  if (s.planned)
    lines.push(
      `${s.planned} capture${s.planned === 1 ? ' was' : 's were'} placed by the capture plan and queued with no click.`,
    );
  if (s.slowestHour) lines.push(`Slowest hour: from ${at(s.slowestHour.from)}, ${formatBytes(s.slowestHour.bytes)}.`);
  if (!s.clockChanged)
    lines.push(
      s.longestOutage
        ? `Longest outage: ${formatEta(s.longestOutage.ms / 1000)} from ${at(s.longestOutage.from)} (${s.longestOutage.cause}); nothing was lost.`
        : 'No outage.',
    );
  lines.push(...ahead);
  if (s.needsYou.length > 0) {
    lines.push(`${s.needsYou.length} need${s.needsYou.length === 1 ? 's' : ''} you:`);
    for (const n of s.needsYou) lines.push(`  ${n.subject}: ${n.cause}. ${n.action}`);
  }
  const warned = s.warned ?? [];
  if (warned.length > 0) {
    lines.push(`${warnedPhrase(warned.length)}, uploaded as they are; look at them in the app:`);
    for (const w of warned) lines.push(`  ${w.subject}: ${w.warnings.join(' ')}`);
  }
  // Only when nothing does: a warning over a damaged recording is something to look at.
  if (s.needsYou.length === 0 && warned.length === 0) lines.push('Nothing needs you.');
  return lines;
}

/** "1 capture with warnings", "2 captures with warnings": the words every finish uses for them. */
export const warnedPhrase = (n: number) => `${n} capture${n === 1 ? '' : 's'} with warnings`;
