import type { BatchProgress } from '../../shared/batch-progress.js';
import { batchProgress } from '../../shared/batch-progress.js';
import { causeFirst } from '../../shared/causes.js';
import { formatBytes } from '../../shared/format.js';
import type { QueueState } from '../../shared/queue-state.js';
import { localTime } from '../../shared/night-summary.js';
import { queueState, queueStateLine } from '../../shared/queue-state.js';
import { committedTotals } from '../queue/totals.js';
import { holdMessage } from '../engine/hold.js';
import type { UploadQueue } from '../queue/queue.js';
import { printable, printableJson } from './printable.js';
import { withQueueReadOnly } from './read-queue.js';
import { statusJson } from '../queue/reader.js';

export { printable };
import type { QueuedFile } from '../queue/queue.js';

/**
 * The queue's state as the app's headline and tray say it (shared/queue-state.ts), from the
 * committed totals and the outage or the stop for refused credentials ("Needs you") a running
 * engine recorded in the queue (main/engine/outage-record.ts, block-record.ts),
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
 * The queue as text lines: the queue-wide hold in force first ("Paused until 07:00: …"), else the
 * queue's state (statusState:), and before the hold "Needs you" when the running
 * engine is stopped by refused credentials (it comes first in the app's headline too), then each
 * capture with its state; each file with state, percentage, size, and what happens next (times
 * local, in the one time format: shared/when.ts; `locale` a BCP 47 tag for tests). The
 * JSON form is built by SQLite (main/queue/reader.ts statusJson).
 */
export function statusOutput(queue: UploadQueue, locale?: string): string[] {
  const hold = queue.meta.holdInForce();
  const byCapture = new Map<number, QueuedFile[]>();
  for (const f of queue.allFiles()) {
    const list = byCapture.get(f.captureRow);
    if (list) list.push(f);
    else byCapture.set(f.captureRow, [f]);
  }
  const captures = queue.captures();
  const state = statusState(queue, Date.now(), locale);
  const lines: string[] = [];
  // First what the app's headline says: "Needs you" (refused credentials) goes before a hold, as in queueState.
  if (state.state.kind !== 'idle' && (!hold || state.state.kind === 'needs-you')) lines.push(state.line);
  if (hold) lines.push(`${holdMessage(hold, new Date(), locale)}.`);
  for (const c of captures) {
    const files = byCapture.get(c.id) ?? [];
    // A capture whose files were all replaced says by which capture, on its own line.
    const by = files.length && files.every((f) => f.replacedBy) ? ` — replaced by capture ${files[0]!.replacedBy}` : '';
    lines.push(
      `capture ${c.id}  ${c.state.padEnd(20)} ${printable(c.label)}${c.captureId ? `  (id ${printable(c.captureId)})` : ''}${by}`,
    );
    if (c.error) lines.push(`    ${printable(c.error)}`);
    for (const f of files) {
      const done = f.storedBytes;
      const pct = f.state === 'completed' ? 100 : f.size ? Math.floor((done / f.size) * 100) : 0;
      const state = f.replacedBy ? 'replaced' : f.state;
      lines.push(
        `  file ${f.id}  ${state.padEnd(10)} ${String(pct).padStart(3)}%  ${formatBytes(f.size).padStart(9)}  ${printable(f.fileName)}`,
      );
      if (f.state === 'pending' && f.nextAttemptAt !== null) {
        // A time ahead: when it goes; a time come: since when it waits for a free slot (never "any
        // moment": it is not on the wire; shared/queue-state.ts retryWait).
        const when =
          f.nextAttemptAt > Date.now()
            ? `tried again at ${localTime(f.nextAttemptAt, { locale })}`
            : `retry due since ${localTime(f.nextAttemptAt, { locale })}`;
        lines.push(`      ${when} (attempt ${f.attempts + 1}): ${causeLine(f.error)}`);
      } else if (f.error) lines.push(`      ${causeLine(f.error)}`);
      // Placed in the app while its card was imported: it starts from the copy once verified.
      else if (f.awaitingCopy && (f.state === 'pending' || f.state === 'waiting'))
        lines.push('      waiting for its verified copy: the app uploads it from the copy once the import verifies it');
    }
  }
  if (captures.length === 0) lines.push('The queue is empty.');
  return lines;
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
  // SQLite's JSON escapes the C0 controls only: the document is written again through printableJson.
  return printableJson(JSON.parse(statusJson(queue.db, queue.meta.holdInForce(), shown)));
}

/**
 * A file's error as `status` says it: the cause in the one wording the screen's rows use
 * (shared/causes.ts causeFirst), then the service's own message, made printable: "storage
 * unavailable — InternalError: … (HTTP 500 on PUT …)".
 */
function causeLine(error: string | null): string {
  return printable(causeFirst(error ?? ''));
}

/**
 * `status`: prints the queue in `dataDir` as text lines (statusOutput) or, with `json`, one
 * `{ type: 'status', state, hold, captures }` document (statusJson; `state` from statusState, its
 * `since` and `nextTry` ms since 1970 or null) (CAPTURE_DATA_DIR, default ~/.capture-uploader).
 * Throws Error naming the file when there is no queue there, or it needs a newer or older version.
 */
export function printStatus(dataDir: string | undefined, json: boolean | undefined, locale?: string): void {
  withQueueReadOnly(dataDir, (queue) => {
    if (json) process.stdout.write(`${statusJsonDocument(queue, locale)}\n`);
    else for (const line of statusOutput(queue, locale)) process.stdout.write(`${line}\n`);
  });
}
