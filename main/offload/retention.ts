import { rm } from 'node:fs/promises';
import type { QueueDatabase } from '../queue/db.js';
import { retentionCandidates } from '../queue/reader.js';
import { markCopyRemoved } from '../queue/writer.js';
import { forgetPartMd5s } from './part-md5.js';

/** How long copies are kept after their capture completed, when the person has not said: 7 days, in ms. */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** A copy the sweep removed (absolute path) and when its capture completed (ISO 8601). */
export interface RemovedCopy {
  copy: string;
  completedAt: string;
}

/**
 * Removes verified copies in the library whose uploads are over: a copy goes
 * only when every queue row that uploads it belongs to a capture the platform reported complete,
 * with every file of that capture completed, and the last of them completed at least
 * `retentionMs` before `now` (ms since 1970). A copy that was never queued (waiting for a place),
 * or any of whose captures has a file not completed, is kept whatever its age. Each removal is
 * recorded (`offload_files.removed_at`); a copy already gone from the disk is recorded the same.
 * Answers what was removed. Throws the file system's error other than ENOENT.
 */
export async function removeFinishedCopies(
  db: QueueDatabase,
  now: number,
  retentionMs: number = DEFAULT_RETENTION_MS,
): Promise<RemovedCopy[]> {
  // Per copy: how many queue rows upload it, how many of those rows' captures are unfinished, and
  // the latest completion (main/queue/reader.ts retentionCandidates).
  const candidates = retentionCandidates(db);
  const removed: RemovedCopy[] = [];
  for (const c of candidates) {
    if (c.queued === 0 || c.unfinished > 0 || c.completed_at === null) continue;
    if (Date.parse(c.completed_at) + retentionMs > now) continue;
    await rm(c.copy_path, { force: true });
    markCopyRemoved(db, c.id, new Date(now).toISOString());
    forgetPartMd5s(db, c.copy_path); // they described bytes that are gone
    removed.push({ copy: c.copy_path, completedAt: c.completed_at });
  }
  return removed;
}
