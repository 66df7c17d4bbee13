import Database from 'better-sqlite3';
import { existsSync, renameSync, statSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Migration } from './migrations/index.js';
import { LATEST_VERSION, MIGRATIONS } from './migrations/index.js';

/**
 * An open connection to queue.db. Code outside main/queue holds it only to hand it back to
 * main/queue's reader and writer functions (reader.ts, writer.ts): every statement on queue.db is
 * written there (docs/decisions/0016-queue-db-owner.md), and eslint refuses better-sqlite3 elsewhere.
 */
export type QueueDatabase = Database.Database;

/** The queue file was written by a newer version of the app; it is left untouched. */
export class QueueTooNewError extends Error {
  override readonly name = 'QueueTooNewError';
  constructor(
    readonly file: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `The upload queue ${file} was written by a newer version of Capture Uploader (schema ${found}; this version knows up to ${known}). ` +
        'Install the newer version to carry on with it. Nothing in it was changed.',
    );
  }
}

/** An opened queue database, and where a corrupt earlier file was moved, if one was. */
export interface OpenedQueue {
  db: Database.Database;
  /** Path the corrupt file was moved to; the queue starts empty beside it. */
  setAside?: string;
  /** Why that file was moved aside, one clause ("it is an empty file (0 bytes)"); set with `setAside`. */
  damage?: string;
}

/** How openQueueDatabase tells a damaged queue file from a new one. */
export interface OpenQueueOptions {
  /**
   * The folder was used before this open: its `queue.lock` was there before this process took it
   * (main/queue/lock.ts). A file without the schema in a used folder is damaged, not new.
   */
  usedBefore?: boolean;
  /** Tables every release's schema has; one missing from a versioned file makes it damaged. Default: the queue's first tables (migration 1) for the queue's migrations, none otherwise. */
  coreTables?: readonly string[];
}

/** The tables migration 1 created; every queue a release wrote has them. */
export const QUEUE_CORE_TABLES = ['captures', 'files', 'parts'] as const;

/**
 * Why the database file `file`, open in `db`, is damaged rather than a queue a release wrote or a
 * new one, as one clause for a sentence ("it is an empty file (0 bytes)"), or undefined when it is
 * not. `sizeBefore` is the file's size in bytes before SQLite opened it (undefined: there was no
 * file). A file without any table is new only when its folder shows no sign of use: `usedBefore`,
 * or a `-wal`/`-shm` beside it (`walOrShmBefore`: seen before opening). A file with tables but
 * without a schema version, or a version without the core tables, no release wrote. Reads only.
 */
export function queueDamage(
  db: Database.Database,
  o: { sizeBefore: number | undefined; usedBefore?: boolean; walOrShmBefore?: boolean; coreTables?: readonly string[] },
): string | undefined {
  if (o.sizeBefore === undefined) return undefined;
  if (o.sizeBefore === 0) return 'it is an empty file (0 bytes)';
  const version = db.pragma('user_version', { simple: true }) as number;
  const tables = new Set(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[]);
  if (version === 0 && tables.size === 0) {
    if (o.walOrShmBefore)
      return 'its tables are missing while a write-ahead log (-wal or -shm) beside it shows it held a queue (its -wal was lost?)';
    if (o.usedBefore) return 'its tables are missing while its folder was used before (queue.lock)';
    return undefined;
  }
  if (version === 0) return 'it has tables but no schema version: no release of Capture Uploader wrote it';
  const missing = (o.coreTables ?? []).filter((t) => !tables.has(t));
  if (missing.length > 0) return `its tables ${missing.join(', ')} are missing (schema ${version})`;
  return undefined;
}

/**
 * Opens (or creates) the queue database at `file` with the settings CONVENTIONS.md asks for:
 * WAL, `synchronous=FULL` (a committed transaction survives power loss), foreign keys on, one
 * writer. Applies the pending migrations in one transaction.
 *
 * A file that is not a database, fails SQLite's integrity check, or is damaged (queueDamage: an
 * empty file, no schema in a used folder, tables no release wrote) is moved aside to
 * `<file>.corrupt-<ISO time>` (with its -wal and -shm) and reported in `setAside` and `damage`,
 * never emptied or deleted: it is never taken for a new, empty queue.
 * Throws QueueTooNewError for a queue of a newer schema, QueueStorageError when it cannot be
 * written (read-only file or folder, full disk).
 */
export function openQueueDatabase(
  file: string,
  migrations: readonly Migration[] = MIGRATIONS,
  options: OpenQueueOptions = {},
): OpenedQueue {
  const coreTables = options.coreTables ?? (migrations === MIGRATIONS ? QUEUE_CORE_TABLES : []);
  try {
    return { db: openChecked(file, migrations, { usedBefore: options.usedBefore, coreTables }) };
  } catch (err) {
    if (err instanceof QueueTooNewError) throw err;
    if (!isCorruption(err)) throw queueStorageError(file, err) ?? err;
    const setAside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    for (const suffix of ['', '-wal', '-shm'])
      if (existsSync(file + suffix)) renameSync(file + suffix, setAside + suffix);
    const damage =
      err instanceof CorruptQueueError && err.damage
        ? err.damage
        : 'SQLite cannot read it whole (it is not a database, or its pages are damaged)';
    // The file now is new: the signs of use were the old file's.
    return { db: openChecked(file, migrations, { coreTables }), setAside, damage };
  }
}

function isCorruption(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT' || err instanceof CorruptQueueError;
}

class CorruptQueueError extends Error {
  constructor(
    message: string,
    readonly damage?: string,
  ) {
    super(message);
  }
}

function sizeOf(file: string): number | undefined {
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
}

function openChecked(
  file: string,
  migrations: readonly Migration[],
  o: { usedBefore?: boolean; coreTables: readonly string[] },
): Database.Database {
  // Looked at before SQLite opens the file: opening creates a missing file (0 bytes) and its -shm.
  const sizeBefore = sizeOf(file);
  const walOrShmBefore = existsSync(`${file}-wal`) || existsSync(`${file}-shm`);
  const db = new Database(file);
  try {
    // Checks first: switching to WAL rewrites the file header, and a refused queue stays untouched.
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new CorruptQueueError(`quick_check: ${String(check)}`);
    const known = migrations.at(-1)?.version ?? 0;
    const found = db.pragma('user_version', { simple: true }) as number;
    if (found > known) throw new QueueTooNewError(file, found, known);
    const damage = queueDamage(db, { sizeBefore, usedBefore: o.usedBefore, walOrShmBefore, coreTables: o.coreTables });
    if (damage) throw new CorruptQueueError(`damaged: ${damage}`, damage);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, file, migrations);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Applies every migration above the database's `user_version`, all in one transaction that also
 * sets `user_version`; a failure leaves the database as it was. Throws QueueTooNewError.
 */
export function migrate(
  db: Database.Database,
  file: string,
  migrations: readonly Migration[] = MIGRATIONS,
  target?: number,
): void {
  const known = migrations.at(-1)?.version ?? 0;
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > known) throw new QueueTooNewError(file, current, known);
  const upTo = target ?? known;
  const pending = migrations.filter((m) => m.version > current && m.version <= upTo);
  if (pending.length === 0) return;
  db.transaction(() => {
    for (const m of pending) m.up(db);
    db.pragma(`user_version = ${pending.at(-1)!.version}`);
  })();
}

export { LATEST_VERSION };

/** Free space asked for on a full disk at the least (bytes): room for the queue to commit and checkpoint again. */
const QUEUE_HEADROOM_BYTES = 64 * 1024 * 1024;

/**
 * The queue database cannot be written or read any more: the disk is full, the file is read-only
 * or was deleted, or the disk failed. Nothing queued is lost by this (SQLite rolls back the
 * transaction that failed); `message` names the file (or, for a full disk, its folder and the
 * free space needed) and the fix. Never a network error.
 */
export class QueueStorageError extends Error {
  override readonly name = 'QueueStorageError';
  constructor(
    readonly file: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(
      code.startsWith('SQLITE_FULL')
        ? QueueStorageError.diskFull(file)
        : `The upload queue ${file} cannot be written (${code}): ${QueueStorageError.advice(code)}`,
      options,
    );
  }

  /**
   * The one sentence for a full disk: the queue's folder, what is free there now,
   * and how much to free: the queue and its write-ahead log again (a checkpoint copies the log
   * into the file), at least QUEUE_HEADROOM_BYTES; in MB (10^6 bytes), rounded up.
   */
  static diskFull(file: string): string {
    const folder = dirname(file);
    let free = 'no space';
    try {
      const fs = statfsSync(folder);
      free = `${mb(fs.bavail * fs.bsize)} MB`;
    } catch {
      free = 'unknown space';
    }
    const size = (suffix: string) => {
      try {
        return statSync(file + suffix).size;
      } catch {
        return 0;
      }
    };
    const need = Math.max(QUEUE_HEADROOM_BYTES, size('') + size('-wal'));
    return `The disk holding the upload queue's folder ${folder} is full (${free} free): free at least ${mb(need)} MB there, then run again; nothing queued was lost.`;
  }

  /** What to do, by SQLite's error code (or `DELETED` when the file went away). */
  static advice(code: string): string {
    if (code.startsWith('SQLITE_FULL'))
      return 'the disk it is on is full. Free some space, then run again; nothing queued was lost.';
    if (
      code.startsWith('SQLITE_READONLY') ||
      code.startsWith('SQLITE_CANTOPEN') ||
      code === 'EACCES' ||
      code === 'EPERM'
    ) {
      return 'it or its folder is read-only for this user. Give write permission, or choose another data folder (--data-dir); nothing in it was changed.';
    }
    if (code === 'DELETED')
      return 'it was deleted or replaced while in use. Uploads stopped; run again to start a new queue, and add the files again.';
    // SQLite reports ENOSPC as SQLITE_FULL, but a write refused otherwise (a quota, a file-size
    // limit, a failing card) as an I/O error: free space is worth checking as well.
    return 'the disk failed to read or write it, or refused to let it grow (a quota, a file-size limit). Check the disk and its free space, then run again; nothing queued was lost.';
  }
}

const mb = (bytes: number) => Math.ceil(bytes / 1e6);

/** The QueueStorageError an error of the queue database amounts to, or undefined for any other error. */
export function queueStorageError(file: string, err: unknown): QueueStorageError | undefined {
  if (err instanceof QueueStorageError) return err;
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  if (/^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|CORRUPT|NOTADB)/.test(code))
    return new QueueStorageError(file, code, { cause: err });
  return undefined;
}
