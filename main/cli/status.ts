import { causeFirst } from '../../shared/causes.js';
import { formatBytes } from '../../shared/format.js';
import { localTime } from '../../shared/night-summary.js';
import { holdMessage } from '../engine/scheduling/hold.js';
import type { UploadQueue } from '../queue/queue.js';
import type { StatusFileRow } from '../queue/reader.js';
import { statusRows } from '../queue/reader.js';
import { statusJsonDocument, statusState } from '../status/status-document.js';
import { printable } from './printable.js';
import { withQueueReadOnly } from './read-queue.js';

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
  const { captures, files: all } = statusRows(queue.db);
  const byCapture = new Map<number, StatusFileRow[]>();
  for (const f of all) {
    const list = byCapture.get(f.captureRow);
    if (list) list.push(f);
    else byCapture.set(f.captureRow, [f]);
  }
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
    // One write: a write per line was a system call each, 15,000 of them at 10,000 files.
    else process.stdout.write(`${statusOutput(queue, locale).join('\n')}\n`);
  });
}
