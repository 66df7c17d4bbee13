import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatBytes } from '../../shared/format.js';
import { LATEST_VERSION } from '../queue/migrations.js';
import { UploadQueue } from '../queue/queue.js';
import { printable } from './printable.js';
import { statusJson } from './status-json.js';

export { printable };
import type { QueuedFile } from '../queue/queue.js';

// `capture-uploader status` reads the queue without the lock and without credentials: SQLite's WAL
// lets a reader see the last committed state while a drain writes, and nothing here writes.

/** Stored parts per file: how many, and their bytes. One query for the whole queue. */
function storedParts(db: Database.Database): Map<number, { parts: number; bytes: number }> {
  const rows = db
    .prepare('SELECT file_id AS fileId, COUNT(*) AS parts, TOTAL(size) AS bytes FROM parts WHERE etag IS NOT NULL GROUP BY file_id')
    .all() as { fileId: number; parts: number; bytes: number }[];
  return new Map(rows.map((r) => [r.fileId, { parts: r.parts, bytes: r.bytes }]));
}

/**
 * The queue as text lines: each capture with its state; each file with state, percentage, size,
 * and what happens next (times local). The JSON form is built by SQLite (status-json.ts).
 */
export function statusOutput(queue: UploadQueue): string[] {
  const stored = storedParts(queue.db);
  const byCapture = new Map<number, QueuedFile[]>();
  for (const f of queue.allFiles()) {
    const list = byCapture.get(f.captureRow);
    if (list) list.push(f);
    else byCapture.set(f.captureRow, [f]);
  }
  const captures = queue.captures();
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
 * `status`: prints the queue in `dataDir` as text lines (statusOutput) or, with `json`, one
 * `{ type: 'status', captures }` document (statusJson) (CAPTURE_DATA_DIR, default ~/.capture-uploader).
 * Throws Error naming the file when there is no queue there, or it needs a newer or older version.
 */
export function printStatus(dataDir: string | undefined, json: boolean | undefined): void {
  const file = join(resolve(dataDir ?? process.env.CAPTURE_DATA_DIR ?? join(homedir(), '.capture-uploader')), 'queue.db');
  if (!existsSync(file)) throw new Error(`No upload queue at ${file} yet: add files first (or give --data-dir).`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== LATEST_VERSION) {
      throw new Error(
        version > LATEST_VERSION
          ? `The upload queue ${file} was written by a newer version of Capture Uploader (schema ${version}); install it to read this queue.`
          : `The upload queue ${file} is from an older version (schema ${version}); run \`capture-uploader drain\` once to bring it up to date.`,
      );
    }
    if (json) process.stdout.write(`${statusJson(db)}\n`);
    else for (const line of statusOutput(new UploadQueue(db))) process.stdout.write(`${line}\n`);
  } finally {
    db.close();
  }
}
