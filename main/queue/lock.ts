import Database from 'better-sqlite3';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** Another process holds the queue; nothing was opened. `holder` is what it wrote about itself, if readable. */
export class QueueInUseError extends Error {
  override readonly name = 'QueueInUseError';
  constructor(
    readonly dir: string,
    readonly lockFile: string,
    readonly holder: LockHolder | undefined,
  ) {
    const who = holder ? `process ${holder.pid} on ${holder.host}, since ${holder.since}` : 'another process';
    super(
      `The upload queue in ${dir} is in use by another Capture Uploader (${who}; lock ${lockFile}). ` +
        'Close it or wait for it to finish, then try again. The lock goes away by itself when that process ends.',
    );
  }
}

/** What the lock's holder writes about itself beside the lock (`queue.lock.owner`). `since` is ISO 8601. */
export interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

/**
 * Takes the queue folder's lock so that one process is the queue's only writer, and returns the
 * release function.
 *
 * The lock is an operating-system lock, not a PID in a file: `queue.lock` is a tiny SQLite database
 * held in exclusive locking mode by an open write transaction (SQLite's own file locking: fcntl on
 * Unix, LockFileEx on Windows). The system drops it the moment the holding process ends, however it
 * ends, so a lock left by a killed process is free at once, and a PID reused by another process
 * after a reboot cannot hold the queue. Two processes starting together cannot both win: taking the
 * lock is one atomic step, and the file is never deleted (deleting it could let a second process
 * lock a new file while the first still holds the old one). Who holds it is written to
 * `queue.lock.owner`, for the refusal message only.
 *
 * Throws QueueInUseError (naming the lock file and its holder) when a live process holds it.
 * A `queue.lock` left by an earlier version (a text file with a PID) is replaced.
 */
export function lockQueue(dir: string, file = `${dir}/queue.lock`): () => void {
  const owner = `${file}.owner`;
  let db: Database.Database | undefined;
  // Two processes starting at the same instant can each hold the shared lock the other needs to
  // give up, and SQLite then answers both "busy" at once: each steps back for a random moment and
  // tries again; only a lock still held after that is someone's.
  for (let attempt = 0; !db; attempt++) {
    try {
      db = take(file);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'SQLITE_NOTADB')
        rmSync(file, { force: true }); // an earlier version's PID file: no OS lock guards it
      else if (code !== 'SQLITE_BUSY') throw err;
      else if (attempt >= 4) throw new QueueInUseError(dir, file, readHolder(owner));
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20 + Math.random() * 80);
    }
  }
  const holder: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  writeFileSync(owner, JSON.stringify(holder));
  let released = false;
  return () => {
    if (released) return;
    released = true;
    rmSync(owner, { force: true });
    db.close(); // rolls the transaction back and drops the lock
  };
}

const LOCK_WAIT_MS = 100;

/** Opens the lock database and takes its exclusive lock now (no waiting). Throws SqliteError (SQLITE_BUSY when held). */
function take(file: string): Database.Database {
  // A short wait rides out the instant two starting processes both touch the file; a holder keeps
  // the lock for its whole run, so waiting longer would only delay the refusal.
  const db = new Database(file, { timeout: LOCK_WAIT_MS });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // An exclusive transaction left open holds the file's exclusive lock until the connection closes.
    db.exec('BEGIN EXCLUSIVE');
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function readHolder(owner: string): LockHolder | undefined {
  try {
    return JSON.parse(readFileSync(owner, 'utf8')) as LockHolder;
  } catch {
    return undefined;
  }
}

/** The lock file of the offload with queue id `id` (`offloads.id`) in the queue folder `dir`: held by the process copying it (lockOffload). */
function offloadLockFile(dir: string, id: number): string {
  return join(dir, `offload-${id}.lock`);
}

/**
 * Takes the lock of offload `id` (an OS lock, as lockQueue's) for as long as its process copies,
 * so that another opening of the queue, in this process or any other, tells a running offload from
 * one whose process is gone (offloadAlive) whether or not the copying process holds the queue
 * lock now (the app closes and reopens its queue while a card copies). The release function drops
 * the lock and removes its file: the offload's record is written by then, and only probes open it
 * afterwards. Throws QueueInUseError when it is held already.
 */
export function lockOffload(dir: string, id: number): () => void {
  const file = offloadLockFile(dir, id);
  const release = lockQueue(dir, file);
  return () => {
    release();
    rmSync(file, { force: true });
  };
}

/**
 * Whether a live process (this one included) copies offload `id` of the queue in `dir` now: its
 * lock (lockOffload) is held. A lock file no process holds is removed. Throws only for an error
 * of the file system other than the lock being held.
 */
export function offloadAlive(dir: string, id: number): boolean {
  const file = offloadLockFile(dir, id);
  if (!existsSync(file)) return false;
  try {
    lockOffload(dir, id)();
    return false;
  } catch (err) {
    if (err instanceof QueueInUseError) return true;
    throw err;
  }
}
