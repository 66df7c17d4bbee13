import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { QueueDatabase } from '../queue/db.js';
import { offloadAlive } from '../queue/lock.js';
import { unfinishedOffloads } from '../queue/reader.js';

// CopyVerified (copy.ts) writes each copy under a hidden `.HEX.partial` name and
// renames it into place only once verified. An app stopped mid-copy leaves that file behind, and
// nothing ever resumes it (a copy starts again from byte 0), so it is GBs of nothing. It is removed
// when the queue opens, where the offload is found interrupted (record.ts markInterruptedOffloads):
// an offload whose lock (main/queue/lock.ts lockOffload) a live process holds, this one or another,
// is never touched.

/**
 * What copyVerified names a copy while it is written: `.HEX.partial`; and `.NAME.partial`, NAME not
 * empty, as versions before the fixed-length name did, whose copies an update may find left behind.
 */
const PARTIAL = /^\..+\.partial$/;

/** The `.partial` files under `dir` (absolute), at any depth; regular files only, links never followed. */
function partialsUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // gone, or its disk is not mounted now
  }
  return entries.flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return partialsUnder(p);
    return e.isFile() && PARTIAL.test(e.name) ? [p] : [];
  });
}

/**
 * Removes the half-written copies (`.X.partial`, regular files, at any depth) left in the
 * destination folder of every offload the queue records `interrupted`, but never in the folder of
 * an offload still running: recorded `copying`, holding its lock (offloadAlive: in any process), or
 * in `running` (the queue's ids, `offloads.id`, of the offloads this process runs now), whose
 * `.partial` files are being written; and nothing else: not the verified copies, the MHL,
 * folders, links, or any other file. Synchronous (called as the queue opens, main/service/uploader.ts).
 * A file that cannot be removed (in use, read-only disk) is left for the next open. Answers the
 * absolute paths removed. Throws SqliteError when the queue cannot be read.
 */
export function removeInterruptedPartials(db: QueueDatabase, running: readonly number[] = []): string[] {
  const rows = unfinishedOffloads(db);
  // A folder an offload still writes to is left alone, whichever record also names it.
  const dir = dirname(db.name);
  const live = new Set(
    rows.filter((r) => r.state === 'copying' || running.includes(r.id) || offloadAlive(dir, r.id)).map((r) => r.id),
  );
  const busy = new Set(rows.filter((r) => live.has(r.id)).map((r) => r.destination));
  const removed: string[] = [];
  for (const dest of new Set(
    rows.filter((r) => r.state === 'interrupted' && !live.has(r.id)).map((r) => r.destination),
  )) {
    if (busy.has(dest)) continue;
    for (const p of partialsUnder(dest)) {
      try {
        if (!lstatSync(p).isFile()) continue;
        rmSync(p);
        removed.push(p);
      } catch {
        // Left for the next open.
      }
    }
  }
  return removed;
}
