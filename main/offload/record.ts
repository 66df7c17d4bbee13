import { dirname } from 'node:path';
import type { QueueDatabase } from '../queue/db.js';
import { lockOffload, offloadAlive } from '../queue/lock.js';
import { copyingOffloadIds, offloadRows } from '../queue/reader.js';
import {
  finishOffloadRow,
  insertOffload,
  insertOffloadFile,
  insertWholeOffload,
  interruptOffload,
  markOffloadsInterrupted,
} from '../queue/writer.js';
import type { OffloadedFile, OffloadJournal, OffloadResult, OffloadStart } from './offload.js';

// The queue's record of each offload (migrations 8 and 14; its statements are main/queue/reader.ts
// and writer.ts), written as the offload goes, each step in its own short transaction committed
// before the work it describes moves on (CONVENTIONS.md, "The upload engine"): the offload's row when it starts, each file's
// row as it is verified or fails, the end. A crash at any instant leaves a record the next start
// understands: the verified copies made before it stay known to the retention sweep
// (retention.ts), the library's use (library-usage.ts) and the files held for their copies
// (main/queue/copy-holds.ts, recorded-copies.ts).

/** Where an offload stands: `copying` while it runs, then `finished`, or `interrupted` when the app stopped mid-way or the offload failed. */
type OffloadState = 'copying' | 'finished' | 'interrupted';

/** An offload as the queue keeps it (migrations 8 and 14): one card copied, with its files' hashes. */
export interface OffloadRecord {
  id: number;
  card: string;
  cardName: string;
  destination: string;
  /** ISO 8601. */
  startedAt: string;
  /** ISO 8601; null while it copies and when it was interrupted. */
  finishedAt: string | null;
  state: OffloadState;
  /** Number of recordings' files and their total bytes (planned when it started). */
  fileCount: number;
  bytes: number;
  /** Every file verified; false until the offload finishes. */
  verified: boolean;
  mhlPath: string | null;
  /** The files checked so far, in the order they were. */
  files: Pick<OffloadedFile, 'source' | 'copy' | 'size' | 'mtimeMs' | 'xxh64' | 'verified' | 'error'>[];
}

/** Writes the offload's row as it starts (`copying`, not verified, no end); answers its id. Throws SqliteError. */
function beginOffload(db: QueueDatabase, s: OffloadStart): number {
  return insertOffload(db, s);
}

/** Writes one file's row of offload `id` once it is verified or failed for good (its XXH64, its copy, verified or not). Throws SqliteError. */
function recordOffloadFile(db: QueueDatabase, id: number, f: OffloadedFile): void {
  insertOffloadFile(db, id, f);
}

/**
 * Ends offload `id` as `finished` with the result's counts, verdict and MHL, in one transaction
 * that also writes the rows of any of its files not recorded yet (a write that failed, or the
 * queue closed, while it ran). Throws SqliteError.
 */
function finishOffload(db: QueueDatabase, id: number, r: OffloadResult): void {
  finishOffloadRow(db, id, everyFile(r));
}

/** The result with the rest of a card copied whole counted as its files: the record keeps every copy (the library's use and a later check count them). */
const everyFile = (r: OffloadResult): OffloadResult => ({
  ...r,
  files: [...r.files, ...(r.others ?? [])],
  bytes: r.bytes + (r.otherBytes ?? 0),
});

/**
 * Records a whole offload at once (begin, every file, finish) in one transaction; answers its row
 * id. For an offload that ran without a record (the queue was closed when it started). Throws SqliteError.
 */
export function recordOffload(db: QueueDatabase, result: OffloadResult): number {
  const r = everyFile(result);
  return insertWholeOffload(
    db,
    {
      card: r.card,
      cardName: r.cardName,
      destination: r.destination,
      startedAt: r.startedAt,
      files: r.files.length,
      bytes: r.bytes,
    },
    r,
  );
}

/**
 * Marks `interrupted` every offload still `copying` whose process is gone: its lock
 * (main/queue/lock.ts lockOffload, held by whichever process copies it, this one included) is
 * free. Called at a queue's open: an offload cut short by a crash, a quit or a power cut is found
 * so, one another process or this one copies now is left alone. `running` (ids of offloads this
 * process runs) is left alone as well, whatever its lock. Its file rows stay as they were.
 * Answers the ids marked.
 */
export function markInterruptedOffloads(db: QueueDatabase, running: readonly number[] = []): number[] {
  const dir = dirname(db.name);
  const stale = copyingOffloadIds(db).filter((id) => !running.includes(id) && !offloadAlive(dir, id));
  markOffloadsInterrupted(db, stale);
  return stale;
}

/**
 * An offload's record kept as it goes (OffloadJournal, handed to offloadCard) in the queue that
 * `db` answers at each step: the app's queue may be closed and opened again while a card copies.
 * A step that cannot be written (no queue open, a write refused) is passed to `warn` and never
 * stops the copy; `finish` writes what was missed.
 */
export class OffloadRecorder implements OffloadJournal {
  /** The offload's row id, once its start was recorded. */
  id: number | undefined;

  /** Drops the offload's lock (lockOffload), taken once its start was recorded. */
  private unlock: (() => void) | undefined;

  constructor(
    private readonly db: () => QueueDatabase | undefined,
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  begin(s: OffloadStart): void {
    this.step(`The offload of ${s.cardName} to ${s.destination} was not recorded as it started`, (db) => {
      this.id = beginOffload(db, s);
      // Held until the end is recorded: another opening of the queue then knows this offload
      // runs, and leaves its half-written copies alone (partials.ts).
      try {
        this.unlock = lockOffload(dirname(db.name), this.id);
      } catch (err) {
        this.warn(`The offload of ${s.cardName} could not take its lock: ${(err as Error).message}`);
      }
    });
  }

  file(f: OffloadedFile): void {
    if (this.id !== undefined)
      this.step(`The check of ${f.source} was not recorded`, (db) => recordOffloadFile(db, this.id!, f));
  }

  /** The offload ended with `r`: its row is finished (or written whole if its start was not); `id` says which, undefined when it could not be written. */
  finish(r: OffloadResult): void {
    this.step(`The offload of ${r.cardName} to ${r.destination} was not recorded`, (db) => {
      if (this.id === undefined) this.id = recordOffload(db, r);
      else finishOffload(db, this.id, r);
    });
    this.release();
  }

  /** The offload failed part-way (it threw): its row says `interrupted`, its verified copies stay known. */
  interrupt(): void {
    if (this.id !== undefined) this.step("The offload's end was not recorded", (db) => interruptOffload(db, this.id!));
    this.release();
  }

  /**
   * Drops the offload's lock without recording an end, as the end of its process would: the next
   * opening of the queue finds the offload interrupted and removes its half-written copies. For a
   * process that stops while the copy still runs (a test's stand-in for a quit or a crash).
   */
  abandon(): void {
    this.release();
  }

  private release(): void {
    this.unlock?.();
    this.unlock = undefined;
  }

  private step(what: string, write: (db: QueueDatabase) => void): void {
    const db = this.db();
    if (!db) return this.warn(`${what}: the queue was closed.`);
    try {
      write(db);
    } catch (err) {
      this.warn(`${what}: ${(err as Error).message}`);
    }
  }
}

/** Every offload recorded in the queue, oldest first, with its files in the order they were checked. */
export function listOffloads(db: QueueDatabase): OffloadRecord[] {
  return offloadRows(db).map(({ offload: r, files }) => ({
    id: r.id,
    card: r.card_path,
    cardName: r.card_name,
    destination: r.destination,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    state: r.state,
    fileCount: r.files,
    bytes: r.bytes,
    verified: r.verified === 1,
    mhlPath: r.mhl_path,
    files: files.map((f) => ({
      source: f.source_path,
      copy: f.copy_path,
      size: f.size,
      mtimeMs: f.mtime_ms,
      ...(f.xxh64 ? { xxh64: f.xxh64 } : {}),
      verified: f.verified === 1,
      ...(f.error ? { error: f.error } : {}),
    })),
  }));
}
