import ms from 'ms';
import { causeFirst } from '../../shared/causes.js';
import { summaryLines } from '../../shared/night-summary.js';
import type { WhenOptions } from '../../shared/when.js';
import { whenAt } from '../../shared/when.js';
import type { ActivityEntry } from '../queue/activity.js';
import { printable, printableJson } from './printable.js';
import { withQueueReadOnly } from './read-queue.js';
import { queueSummary } from '../status/summary.js';

/**
 * `--since` as an ISO 8601 time: an ISO date or time as given, or a duration back from now
 * (`12h`, `2d`, `30m`). Throws Error naming the flag and the fix.
 */
function sinceTime(text: string, now = Date.now()): string {
  const back = /^\d+(\.\d+)?\s*[a-z]+$/i.test(text.trim()) ? ms(text.trim() as ms.StringValue) : undefined;
  if (typeof back === 'number' && back > 0) return new Date(now - back).toISOString();
  const t = Date.parse(text);
  if (Number.isNaN(t))
    throw new Error(
      `--since ${text} is not a time: give an ISO 8601 time such as 2026-11-23T18:00 or a duration such as 12h`,
    );
  return new Date(t).toISOString();
}

/**
 * One activity line as people read it: the time in the one format, to the second (shared/when.ts
 * whenAt: the locale's clock, the date when not today), what, to which capture or
 * file, and why (for a failure, an outage or a retry: its cause in the one wording of
 * shared/causes.ts, then the service's message). `opts` (`now` ms, `locale` BCP 47) for tests.
 */
export function activityLine(e: ActivityEntry, opts: WhenOptions = {}): string {
  const local = whenAt(e.at, { ...opts, seconds: true });
  const who = e.fileId !== null ? `file ${e.fileId}` : e.captureRow !== null ? `capture ${e.captureRow}` : 'queue';
  const why = printable(CAUSED.has(e.kind) ? causeFirst(e.message) : e.message);
  return `${local}  ${e.kind.padEnd(20)} ${who.padEnd(12)} ${printable(e.subject)}: ${why}`;
}

/** The lines whose message is a failure's: they say its cause first, in the screen's words (shared/causes.ts). */
const CAUSED: ReadonlySet<string> = new Set(['outage', 'retry-scheduled', 'registration-retry', 'failed']);

/**
 * `log`: the night's story from the queue's activity log (main/queue/activity.ts), oldest first,
 * from `since` on (ISO 8601 or a duration back from now; default the last 24 h), at most `limit`
 * (the newest ones); with `json` one JSON object per entry; with `summary` the morning summary
 * instead (shared/night-summary.ts: text lines, or one JSON object with `json`). Reads the queue
 * read-only, like status.
 */
export function printLog(
  dataDir: string | undefined,
  opts: { since?: string; limit?: number; json?: boolean; summary?: boolean },
): void {
  const since = sinceTime(opts.since ?? '24h');
  if (opts.summary) {
    // The morning summary: a few lines, or one `{ type: 'summary', … }` object (main/status/summary.ts).
    const summary = withQueueReadOnly(dataDir, (q) => queueSummary(q, since));
    if (opts.json) process.stdout.write(`${printableJson({ type: 'summary', since, ...summary })}\n`);
    else for (const line of summaryLines(summary)) process.stdout.write(`${printable(line)}\n`);
    return;
  }
  const entries = withQueueReadOnly(dataDir, (q) => q.activity.list({ since, limit: opts.limit ?? 10_000 }));
  if (entries.length === 0) process.stdout.write(`Nothing happened since ${whenAt(since)}.\n`);
  for (const e of entries) process.stdout.write(`${opts.json ? printableJson(e) : activityLine(e)}\n`);
}
