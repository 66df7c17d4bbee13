import { formatBytes } from '../../shared/format.js';
import { holdMessage } from '../engine/hold.js';
import type { UploadQueue } from '../queue/queue.js';
import { printable } from './printable.js';
import { withQueueReadOnly } from './read-queue.js';
import { statusJson } from './status-json.js';

export { printable };
import type { QueuedFile } from '../queue/queue.js';

/**
 * The queue as text lines: the queue-wide hold in force first ("Paused until 07:00: …"), then each
 * capture with its state; each file with state, percentage, size, and what happens next (times
 * local). The JSON form is built by SQLite (status-json.ts).
 */
export function statusOutput(queue: UploadQueue): string[] {
  const hold = queue.meta.holdInForce();
  const byCapture = new Map<number, QueuedFile[]>();
  for (const f of queue.allFiles()) {
    const list = byCapture.get(f.captureRow);
    if (list) list.push(f);
    else byCapture.set(f.captureRow, [f]);
  }
  const captures = queue.captures();
  const lines: string[] = hold ? [`${holdMessage(hold)}.`] : [];
  for (const c of captures) {
    const files = byCapture.get(c.id) ?? [];
    // A capture whose files were all replaced (issue 17 #14) says by which capture, on its own line.
    const by = files.length && files.every((f) => f.replacedBy) ? ` — replaced by capture ${files[0]!.replacedBy}` : '';
    lines.push(`capture ${c.id}  ${c.state.padEnd(20)} ${printable(c.label)}${c.captureId ? `  (id ${c.captureId})` : ''}${by}`);
    if (c.error) lines.push(`    ${printable(c.error)}`);
    for (const f of files) {
      const done = f.storedBytes;
      const pct = f.state === 'completed' ? 100 : f.size ? Math.floor((done / f.size) * 100) : 0;
      const state = f.replacedBy ? 'replaced' : f.state;
      lines.push(`  file ${f.id}  ${state.padEnd(10)} ${String(pct).padStart(3)}%  ${formatBytes(f.size).padStart(9)}  ${printable(f.fileName)}`);
      if (f.state === 'pending' && f.nextAttemptAt !== null && f.nextAttemptAt > Date.now()) {
        lines.push(`      tried again at ${new Date(f.nextAttemptAt).toLocaleTimeString('en-GB')} (attempt ${f.attempts + 1}): ${printable(f.error ?? '')}`);
      } else if (f.error) lines.push(`      ${printable(f.error)}`);
    }
  }
  if (captures.length === 0) lines.push('The queue is empty.');
  return lines;
}

/**
 * `status`: prints the queue in `dataDir` as text lines (statusOutput) or, with `json`, one
 * `{ type: 'status', hold, captures }` document (statusJson) (CAPTURE_DATA_DIR, default ~/.capture-uploader).
 * Throws Error naming the file when there is no queue there, or it needs a newer or older version.
 */
export function printStatus(dataDir: string | undefined, json: boolean | undefined): void {
  withQueueReadOnly(dataDir, (queue) => {
    if (json) process.stdout.write(`${statusJson(queue.db, queue.meta.holdInForce())}\n`);
    else for (const line of statusOutput(queue)) process.stdout.write(`${line}\n`);
  });
}
