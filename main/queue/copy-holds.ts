import type Database from 'better-sqlite3';
import { ActivityLog } from './activity.js';

// A recording placed while its card is being imported waits for its verified copy
// (files.awaiting_copy, migration 13) instead of being read from the card; this file is the
// queue's side of that hold. The card imports (main/service/card-imports.ts) says where each copy is.

/**
 * A verified copy of a file on a card: its absolute path and what stat said of it once in place
 * (main/intake/file-identity.ts FileFacts: bytes, ms since 1970, device, inode, status-change time in ns).
 */
export interface CopyOf {
  path: string;
  facts: { size: number; mtimeMs: number; dev: string; ino: string; ctimeNs: string };
}

/**
 * What the running imports know, asked by path on the card (absolute, as queued): `copying` while
 * an import runs that has not finished with that file yet (copied and checked); `copied` the
 * verified copy, once there is one. A path no import knows is neither.
 */
export interface CopyRoute {
  copying(path: string): boolean;
  copied(path: string): CopyOf | undefined;
  /** The queue's ids (`offloads.id`) of the offloads running in this process: left `copying` when the queue opens (main/offload/record.ts). */
  runningOffloads?(): number[];
}

/** The copy is of the file as queued: same size and modification time (the copy keeps the card's). */
const sameBytes = (copy: CopyOf, f: { size: number; mtimeMs: number }) =>
  copy.facts.size === f.size && Math.trunc(copy.facts.mtimeMs) === Math.trunc(f.mtimeMs);

/** What a file released from its hold says in its capture's row: why it reads the card now, and what to do. */
export const RELEASED =
  'Its copy was not verified (the copy failed twice, or the import stopped): it uploads straight from the card. Keep the card in the reader until it finishes.';

/** Files not finished yet: a finished file's path is history, never moved. */
const UNFINISHED = `state NOT IN ('completed', 'cancelled') AND replaced_by IS NULL`;

/**
 * Where a file about to be queued goes, in the queueing transaction itself (queue.ts
 * enqueueCapture): to its verified copy when there is one (path and identity of the copy, so its
 * upload neither reads the card nor hashes the copy again, part-md5.ts), held when its import is
 * still copying it, else as it is.
 */
export function routeNewFile<
  F extends {
    path: string;
    size: number;
    mtimeMs: number;
    dev?: string | null;
    ino?: string | null;
    ctimeNs?: string | null;
  },
>(route: CopyRoute | undefined, f: F): { file: F; held: boolean } {
  const copy = route?.copied(f.path);
  if (copy && sameBytes(copy, f))
    return {
      file: {
        ...f,
        path: copy.path,
        mtimeMs: copy.facts.mtimeMs,
        dev: copy.facts.dev,
        ino: copy.facts.ino,
        ctimeNs: copy.facts.ctimeNs,
      },
      held: false,
    };
  return { file: f, held: route?.copying(f.path) ?? false };
}

/**
 * Settles every held file against `route` in one transaction: a file whose copy verified gets the
 * copy's path and identity (size, modification time, device, inode, status-change time; the
 * fingerprint stays, the bytes being the same) and is released; a file no import is copying any
 * more (its copy failed verification twice, the import stopped, or the app was restarted and no
 * import runs) is released where it is, on the card, and uploads from it as "Upload straight from
 * the card" would, with a warning line in its capture's row saying so. Answers the ids moved and released, and their captures' rows. Throws SqliteError when the queue cannot be written.
 */
export function settleCopyHolds(
  db: Database.Database,
  route: CopyRoute | undefined,
): { moved: number[]; released: number[]; captures: number[] } {
  return db.transaction(() => {
    const held = db
      .prepare(
        `SELECT id, capture_row AS captureRow, file_name AS fileName, path, size, mtime_ms AS mtimeMs FROM files WHERE awaiting_copy = 1 AND ${UNFINISHED} ORDER BY id`,
      )
      .all() as { id: number; captureRow: number; fileName: string; path: string; size: number; mtimeMs: number }[];
    const activity = new ActivityLog(db);
    // Said once per capture, however many of its files are released and when.
    const said = db
      .prepare(`SELECT 1 FROM activity WHERE capture_row = ? AND kind = 'warning' AND message = ?`)
      .pluck();
    const warned = (row: number) => said.get(row, RELEASED) !== undefined;
    const captures = new Set<number>();
    const moved: number[] = [];
    const released: number[] = [];
    const move = db.prepare(
      'UPDATE files SET path = ?, mtime_ms = ?, dev = ?, ino = ?, ctime_ns = ?, awaiting_copy = 0 WHERE id = ?',
    );
    const release = db.prepare('UPDATE files SET awaiting_copy = 0 WHERE id = ?');
    for (const f of held) {
      const copy = route?.copied(f.path);
      if (copy && sameBytes(copy, f)) {
        move.run(copy.path, Math.trunc(copy.facts.mtimeMs), copy.facts.dev, copy.facts.ino, copy.facts.ctimeNs, f.id);
        moved.push(f.id);
        captures.add(f.captureRow);
      } else if (!route?.copying(f.path)) {
        release.run(f.id);
        // Said in the capture's queue row (a warning), in the same transaction as the release.
        if (!warned(f.captureRow))
          activity.add({
            captureRow: f.captureRow,
            fileId: f.id,
            subject: f.fileName,
            kind: 'warning',
            message: RELEASED,
          });
        released.push(f.id);
        captures.add(f.captureRow);
      }
    }
    // A finished file left held (cancelled while it waited) holds nothing back.
    db.prepare(`UPDATE files SET awaiting_copy = 0 WHERE awaiting_copy = 1 AND NOT (${UNFINISHED})`).run();
    return { moved, released, captures: [...captures] };
  })();
}
