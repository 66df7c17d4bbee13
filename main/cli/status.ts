import type Database from 'better-sqlite3';
import { formatBytes } from '../../shared/format.js';
import type { UploadQueue } from '../queue/queue.js';
import { printable } from './printable.js';
import { withQueueReadOnly } from './read-queue.js';

export { printable };
import type { QueuedFile } from '../queue/queue.js';

/** Stored parts per file: how many, and their bytes. One query for the whole queue. */
function storedParts(db: Database.Database): Map<number, { parts: number; bytes: number }> {
  const rows = db
    .prepare('SELECT file_id AS fileId, COUNT(*) AS parts, TOTAL(size) AS bytes FROM parts WHERE etag IS NOT NULL GROUP BY file_id')
    .all() as { fileId: number; parts: number; bytes: number }[];
  return new Map(rows.map((r) => [r.fileId, { parts: r.parts, bytes: r.bytes }]));
}

/**
 * The queue as text lines (each capture with its state; each file with state, percentage, size,
 * and what happens next) or, with `json`, one `{ type: 'status', captures }` object whose files
 * carry `partsDone` and `bytesDone`. Times in the text are local; in JSON, ms since the epoch.
 */
export function statusOutput(queue: UploadQueue, json: boolean | undefined): string[] {
  const stored = storedParts(queue.db);
  const byCapture = new Map<number, QueuedFile[]>();
  for (const f of queue.allFiles()) {
    const list = byCapture.get(f.captureRow);
    if (list) list.push(f);
    else byCapture.set(f.captureRow, [f]);
  }
  const captures = queue.captures();
  if (json) {
    const out = captures.map((c) => ({
      ...c,
      files: (byCapture.get(c.id) ?? []).map((f) => ({ ...f, partsDone: stored.get(f.id)?.parts ?? 0, bytesDone: f.state === 'completed' ? f.size : (stored.get(f.id)?.bytes ?? 0) })),
    }));
    return [JSON.stringify({ type: 'status', captures: out })];
  }
  const lines: string[] = [];
  for (const c of captures) {
    lines.push(`capture ${c.id}  ${c.state.padEnd(20)} ${printable(c.label)}${c.captureId ? `  (id ${c.captureId})` : ''}`);
    if (c.error) lines.push(`    ${printable(c.error)}`);
    for (const f of byCapture.get(c.id) ?? []) {
      const done = stored.get(f.id)?.bytes ?? 0;
      const pct = f.state === 'completed' ? 100 : f.size ? Math.floor((done / f.size) * 100) : 0;
      lines.push(`  file ${f.id}  ${f.state.padEnd(10)} ${String(pct).padStart(3)}%  ${formatBytes(f.size).padStart(9)}  ${printable(f.fileName)}`);
      if (f.state === 'pending' && f.nextAttemptAt !== null && f.nextAttemptAt > Date.now()) {
        lines.push(`      tried again at ${new Date(f.nextAttemptAt).toLocaleTimeString('en-GB')} (attempt ${f.attempts + 1}): ${printable(f.error ?? '')}`);
      } else if (f.error) lines.push(`      ${printable(f.error)}`);
    }
  }
  if (captures.length === 0) lines.push('The queue is empty.');
  return lines;
}

/**
 * `status`: prints the queue in `dataDir` (CAPTURE_DATA_DIR, default ~/.capture-uploader).
 * Throws Error naming the file when there is no queue there, or it needs a newer or older version.
 */
export function printStatus(dataDir: string | undefined, json: boolean | undefined): void {
  for (const line of withQueueReadOnly(dataDir, (queue) => statusOutput(queue, json))) process.stdout.write(`${line}\n`);
}
