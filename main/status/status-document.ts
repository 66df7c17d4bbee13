// The queue's state as the app's headline, `status` and the support report say it: one folder both
// the CLI and the upload service import, so the report is not CLI code the app borrows.
import type { BatchProgress } from '../../shared/batch-progress.js';
import { batchProgress } from '../../shared/batch-progress.js';
import { formatBytes } from '../../shared/format.js';
import { printableJsonText } from '../../shared/printable.js';
import type { QueueState } from '../../shared/queue-state.js';
import { queueState, queueStateLine } from '../../shared/queue-state.js';
import type { UploadQueue } from '../queue/queue.js';
import { statusJson } from '../queue/reader.js';
import { committedTotals } from '../queue/totals.js';

/**
 * The queue's state as the app's headline and tray say it (shared/queue-state.ts), from the
 * committed totals and the outage or the stop for refused credentials ("Needs you") a running
 * engine recorded in the queue (main/engine/outages/outage-record.ts, block-record.ts),
 * with the batch's progress (shared/batch-progress.ts): `state` and the figures for `--json`, and
 * the line `Waiting to retry — next try 19:47 · nothing lost · 43% · 5.0 MiB of 11.4 MiB stored`
 * (then `· Earlier: 195 files uploaded` when earlier batches completed files).
 */
export function statusState(
  queue: UploadQueue,
  now = Date.now(),
  locale?: string,
): { state: QueueState; progress: BatchProgress; line: string } {
  // The outage and the stop for refused credentials the running engine recorded (OutageRecord,
  // BlockRecord): the same state the screen shows.
  const t = { ...committedTotals(queue.totals()), outage: queue.meta.outage() };
  const state = queueState(t, { blocked: queue.meta.blocked(), hold: queue.meta.holdInForce(), now, locale });
  const p = batchProgress(t);
  return {
    state,
    progress: p,
    line: `${queueStateLine(state)} · ${p.percent}% · ${formatBytes(p.bytesDone)} of ${formatBytes(p.bytesTotal)} stored${p.earlier ? ` · ${p.earlier}` : ''}`,
  };
}

/**
 * The `status --json` document of `queue`: `{ type: 'status', state, hold, captures }` (statusJson;
 * `state` from statusState, its `since` and `nextTry` ms since 1970 or null, the batch's `percent`,
 * `filesDone`, `files`, `bytesDone`, `bytesTotal` and `earlier` as shared/batch-progress.ts says
 * them), one line of JSON.
 */
export function statusJsonDocument(queue: UploadQueue, locale?: string): string {
  const { state, progress } = statusState(queue, Date.now(), locale);
  const shown = {
    kind: state.kind,
    headline: state.headline,
    detail: state.detail,
    since: state.since,
    nextTry: state.nextTry,
    percent: progress.percent,
    filesDone: progress.filesDone,
    files: progress.files,
    bytesDone: progress.bytesDone,
    bytesTotal: progress.bytesTotal,
    earlier: progress.earlier,
  };
  // SQLite's JSON escapes the C0 controls only: the rest is escaped on the text, as printableJson
  // writes it, without parsing 8 MB at 10,000 files to write it again.
  return printableJsonText(statusJson(queue.db, queue.meta.holdInForce(), shown));
}
