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
  /** From start to finish (or to the last completion while work is left). */
  durationMs: number;
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
}

/** One activity line as the summary reads it (ActivityEntry / ActivityView): `at` ISO 8601. */
export interface SummaryEntry {
  at: string;
  fileId: number | null;
  captureRow: number | null;
  kind: string;
  message: string;
}

/**
 * The summary of `entries` (oldest first). `sizeOf` gives a completed file's size (bytes; undefined
 * when it left the queue: it then counts 0 bytes); `needsYou` what waits for a person now;
 * `workLeft` whether files still move by themselves (then there is no finish yet).
 */
export function nightSummary(
  entries: readonly SummaryEntry[],
  sizeOf: (fileId: number) => number | undefined,
  needsYou: NightSummary['needsYou'],
  workLeft: boolean,
  warned: NightSummary['warned'] = [],
): NightSummary {
  const t = (e: SummaryEntry) => Date.parse(e.at);
  const started = entries.find((e) => e.kind === 'started') ?? entries[0];
  const done = entries.filter((e) => e.kind === 'completed' && e.fileId !== null);
  const startedAt = started ? t(started) : null;
  const lastDone = done.length ? t(done.at(-1)!) : null;
  const finishedAt = !workLeft && lastDone !== null ? lastDone : null;
  const bytes = done.reduce((n, e) => n + (sizeOf(e.fileId!) ?? 0), 0);

  let slowestHour: NightSummary['slowestHour'] = null;
  if (startedAt !== null && lastDone !== null && lastDone - startedAt >= 2 * 3_600_000) {
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
  // showed (`outage` … `outage-over`, main/engine/outage-record.ts): those are the night's storage
  // and gateway outages. A log without them (written before the engine kept them) tells them by
  // the files' scheduled retries. Registrations waiting for the service are told by their own
  // retries either way: the engine's outage is about parts.
  const engineSaw = entries.some((e) => e.kind === 'outage');
  let longestOutage: NightSummary['longestOutage'] = null;
  const close = (open: { from: number; cause: string } | null, to: number) => {
    if (!open) return;
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
    durationMs: startedAt !== null && lastDone !== null ? lastDone - startedAt : 0,
    captures: entries.filter((e) => e.kind === 'capture-completed').length,
    files: done.length,
    bytes,
    slowestHour,
    longestOutage,
    needsYou,
    warned,
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
  // timeStyle keeps the locale's own clock (no forced leading zero, no forced 24 hours).
  const time = d.toLocaleTimeString(opts.locale, { timeStyle: opts.seconds ? 'medium' : 'short' });
  const today = d.toDateString() === new Date(opts.now ?? Date.now()).toDateString();
  return today ? time : `${d.toLocaleDateString(opts.locale, { day: 'numeric', month: 'short' })} ${time}`;
}

/** The summary as lines a person reads in the morning ("Finished at 03:12 after 7 h 40 min: 48 captures, 312 GiB."). */
export function summaryLines(s: NightSummary, opts: { now?: number; locale?: string } = {}): string[] {
  const at = (ms: number) => localTime(ms, opts);
  if (s.startedAt === null) return ['Nothing happened in this period.'];
  const lines: string[] = [];
  const what = `${s.captures} capture${s.captures === 1 ? '' : 's'} (${s.files} file${s.files === 1 ? '' : 's'}), ${formatBytes(s.bytes)}`;
  lines.push(
    s.finishedAt !== null
      ? `Started at ${at(s.startedAt)}; finished at ${at(s.finishedAt)} after ${formatEta(s.durationMs / 1000)}: ${what} uploaded.`
      : `Started at ${at(s.startedAt)}; still going: ${what} uploaded so far.`,
  );
  if (s.slowestHour) lines.push(`Slowest hour: from ${at(s.slowestHour.from)}, ${formatBytes(s.slowestHour.bytes)}.`);
  lines.push(
    s.longestOutage
      ? `Longest outage: ${formatEta(s.longestOutage.ms / 1000)} from ${at(s.longestOutage.from)} (${s.longestOutage.cause}); nothing was lost.`
      : 'No outage.',
  );
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
