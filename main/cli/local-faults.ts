import { statSync, statfsSync } from 'node:fs';
import { isOutOfMemory, localFaultMessage } from '../api/errors.js';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { captureCountsOfFile } from '../queue/reader.js';

// Local faults told in plain sentences: a full disk or a refused write names the
// folder and the fix, never SQLite's raw "database or disk is full".

/** Room (MB) asked for when the disk under the queue is full: SQLite's WAL and its checkpoint need about twice the queue file, and never less than this. */
const MIN_FREE_MB = 64;

const MB = 1_000_000;

/**
 * The plain sentence for an error reaching the command line: a full disk (SQLITE_FULL, ENOSPC)
 * says "The disk holding <folder> is full: free N MB and run again"; a refused write (EACCES,
 * EPERM, EROFS, SQLITE_READONLY) names the folder and why, and so does a queue that cannot be
 * opened at all (SQLITE_CANTOPEN: a folder this user cannot write). An I/O error (SQLITE_IOERR,
 * EIO) where the disk has less room than the queue needs is the full disk it is (SQLite reads a
 * queue in WAL mode through a shared-memory file beside it, which cannot grow on a full disk, and
 * says only "disk I/O error"); with room to spare it is this computer's disk failing. Memory that
 * cannot be had (ENOMEM) says so (errors.ts localFaultMessage). Anything else keeps its message.
 * `dataDir` is the queue's folder as given (CAPTURE_DATA_DIR, default ~/.capture-uploader),
 * named when the error does not name a file itself.
 */
export function plainFault(err: unknown, dataDir: string | undefined): string {
  const e = err as { code?: unknown; file?: unknown; path?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  const code = typeof e.code === 'string' ? e.code : /database or disk is full/.test(message) ? 'SQLITE_FULL' : '';
  const queueDir = resolve(dataDir ?? process.env.CAPTURE_DATA_DIR ?? join(homedir(), '.capture-uploader'));
  const file = typeof e.file === 'string' ? e.file : typeof e.path === 'string' ? e.path : join(queueDir, 'queue.db');
  const folder = typeof e.file === 'string' || typeof e.path === 'string' ? dirname(file) : queueDir;
  const need = roomNeeded(join(queueDir, 'queue.db'));
  const ioError = code.startsWith('SQLITE_IOERR') || code === 'EIO';
  if (code.startsWith('SQLITE_FULL') || code === 'ENOSPC' || (ioError && freeMb(folder) < need)) {
    return `The disk holding ${folder} is full: free ${need} MB and run again. Nothing queued was lost.`;
  }
  if (ioError)
    return `The disk holding ${folder} failed to read or write ${file} (${code}: ${message}): check the disk (its health, its cable), then run again. Nothing was marked failed; nothing queued was lost.`;
  if (isOutOfMemory(err)) return localFaultMessage(err);
  if (code === 'EROFS')
    return `${folder} is on a read-only disk (mounted read-only, or a locked card): nothing could be written there. Choose another data folder (--data-dir) or make the disk writable, and run again.`;
  if (code === 'EACCES' || code === 'EPERM' || code.startsWith('SQLITE_READONLY')) {
    return `${file} cannot be written: this user has no permission there (${code}). Give write permission, or choose another data folder (--data-dir), and run again.`;
  }
  // SQLite opens a queue in WAL mode only where it can create queue.db-shm beside it, even to read
  // it (`status`, `log`): a folder this user cannot write, or a file it cannot read.
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return `The upload queue ${file} cannot be opened, not even to read it: this user cannot write its folder ${folder} (SQLite keeps a shared-memory file beside the queue) or read the file itself. Run as the user who owns it, or give this user read and write permission to the folder, and run again. Nothing was changed.`;
  }
  return message;
}

/** MB (10^6 bytes) free on the disk holding `folder`, or Infinity when it cannot be asked. */
function freeMb(folder: string): number {
  try {
    const fs = statfsSync(folder);
    return (fs.bavail * fs.bsize) / MB;
  } catch {
    return Infinity;
  }
}

/** MB to free so the queue can be written again: twice its file and WAL, at least MIN_FREE_MB. */
function roomNeeded(queueFile: string): number {
  let bytes = 0;
  for (const f of [queueFile, `${queueFile}-wal`]) {
    try {
      bytes += statSync(f).size;
    } catch {
      // not there: nothing to count
    }
  }
  return Math.max(MIN_FREE_MB, Math.ceil((2 * bytes) / MB));
}

/**
 * What a corrupt queue moved aside at `setAside` held, read from it read-only if SQLite can read
 * that much: "It held 3 capture(s), 1 of them not completed." or "It could not be read to count its
 * captures." Never throws, never writes to the file.
 */
function setAsideContents(setAside: string): string {
  const counts = captureCountsOfFile(setAside);
  return counts
    ? `It held ${counts.captures} capture(s), ${counts.open} of them not completed.`
    : 'It could not be read to count its captures.';
}

/**
 * What a command that found the queue damaged says after openUploader's warning (which names
 * where the old queue went): what it held, that nothing was done, and what re-adding would do.
 */
export function setAsideMessage(setAside: string): string {
  return (
    `${setAsideContents(setAside)} Nothing was done this time; run the command again to use the new queue. ` +
    `Captures the old queue (${setAside}) had registered are at the platform already: adding their files again registers them a second time.`
  );
}
