import type { Database } from 'better-sqlite3';
import { QueueTooNewError, openQueueDatabase } from '../queue/db.js';
import { RECORDS_MIGRATIONS } from './migrations.js';

/** A progress entry to record (progress-records-interface.md §4 POST /progress): `date` YYYY-MM-DD. */
export interface OutboxEntry {
  date: string;
  status: string;
  details: string;
}

/**
 * An entry waiting in the outbox. `queuedAt` ISO 8601 UTC; `attempts` sends that may have reached
 * the service; `state` 'refused' with the service's `error` when it refused the entry, or 'waiting'
 * with why the last send did not go (`error`, null before any). `knownIds`: the ids of the entries
 * with the same date, status and details that were on the service before its first send, or those
 * another outbox entry took as its own since (null before a send); after a lost answer only an
 * entry not among them is its own (docs/decisions/0027-progress-lost-answer-match.md).
 */
export interface OutboxItem extends OutboxEntry {
  id: number;
  queuedAt: string;
  attempts: number;
  state: 'waiting' | 'refused';
  error: string | null;
  knownIds: string[] | null;
}

/** A cached answer and when the service gave it (ISO 8601 UTC). */
export interface Cached<T> {
  value: T;
  asOf: string;
}

interface OutboxRow {
  id: number;
  date: string;
  status: string;
  details: string;
  queued_at: string;
  attempts: number;
  state: 'waiting' | 'refused';
  error: string | null;
  known_ids: string | null;
}

/**
 * records.db: the office workspace's last answers and its outbox, in SQLite (WAL,
 * synchronous=FULL, numbered migrations: the queue's opener and rules). Every method runs one
 * statement or one transaction, so a crash leaves either the old or the new state.
 * Throws Error when the file was written by a newer version, QueueStorageError when it cannot be written.
 */
export class RecordsStore {
  private constructor(private readonly db: Database) {}

  /** Opens or creates the file (a corrupt one is moved aside, as the queue's is). */
  static open(file: string): RecordsStore {
    try {
      return new RecordsStore(openQueueDatabase(file, RECORDS_MIGRATIONS).db);
    } catch (err) {
      if (err instanceof QueueTooNewError) {
        throw new Error(
          `The office records cache ${file} was written by a newer version of Capture Uploader (schema ${err.found}); install it to carry on.`,
        );
      }
      throw err;
    }
  }

  /** The last answer stored under `kind` for this scope, or undefined. */
  read<T>(scope: string, kind: string): Cached<T> | undefined {
    const row = this.db.prepare('SELECT json, as_of FROM cached WHERE scope = ? AND kind = ?').get(scope, kind) as
      | { json: string; as_of: string }
      | undefined;
    return row && { value: JSON.parse(row.json) as T, asOf: row.as_of };
  }

  /** Keeps `value` as the answer under `kind`, given by the service at `asOf` (ISO 8601). */
  write(scope: string, kind: string, value: unknown, asOf: string): void {
    this.db
      .prepare('INSERT OR REPLACE INTO cached (scope, kind, json, as_of) VALUES (?, ?, ?, ?)')
      .run(scope, kind, JSON.stringify(value), asOf);
  }

  /** The scope's outbox, oldest first. */
  outbox(scope: string): OutboxItem[] {
    const rows = this.db
      .prepare(
        'SELECT id, date, status, details, queued_at, attempts, state, error, known_ids FROM outbox WHERE scope = ? ORDER BY id',
      )
      .all(scope) as OutboxRow[];
    return rows.map((r) => ({
      id: r.id,
      date: r.date,
      status: r.status,
      details: r.details,
      queuedAt: r.queued_at,
      attempts: r.attempts,
      state: r.state,
      error: r.error,
      knownIds: r.known_ids === null ? null : (JSON.parse(r.known_ids) as string[]),
    }));
  }

  /** The scope's outbox item `id` as it is now, or undefined when it is gone. */
  item(scope: string, id: number): OutboxItem | undefined {
    return this.outbox(scope).find((i) => i.id === id);
  }

  /**
   * Puts an entry in the outbox, committed before anything is sent (`attempts` 0; a send is
   * counted by `countAttempt`, with the ids known before it).
   */
  enqueue(scope: string, entry: OutboxEntry, queuedAt: string): OutboxItem {
    const info = this.db
      .prepare('INSERT INTO outbox (scope, date, status, details, queued_at, attempts) VALUES (?, ?, ?, ?, ?, 0)')
      .run(scope, entry.date, entry.status, entry.details, queuedAt);
    return {
      ...entry,
      id: Number(info.lastInsertRowid),
      queuedAt,
      attempts: 0,
      state: 'waiting',
      error: null,
      knownIds: null,
    };
  }

  /**
   * Counts a send of the item with `knownIds`, the ids of the entries of the same content on the
   * service before it (see OutboxItem), committed before the request leaves.
   */
  countAttempt(id: number, knownIds: readonly string[]): void {
    this.db
      .prepare('UPDATE outbox SET attempts = attempts + 1, known_ids = ? WHERE id = ?')
      .run(JSON.stringify(knownIds), id);
  }

  /**
   * The item recorded as entry `entryId` (its answer, or found after a lost one): it leaves the
   * outbox, and `entryId` is added to the known ids of every other sent item of the same content,
   * so that none takes it as its own too; one transaction. Answers whether the item was there.
   */
  settle(scope: string, id: number, entryId: string): boolean {
    return this.db.transaction(() => {
      const row = this.db
        .prepare('SELECT date, status, details FROM outbox WHERE scope = ? AND id = ?')
        .get(scope, id) as OutboxEntry | undefined;
      if (!row) return false;
      this.db.prepare('DELETE FROM outbox WHERE id = ?').run(id);
      const others = this.db
        .prepare(
          'SELECT id, known_ids FROM outbox WHERE scope = ? AND date = ? AND status = ? AND details = ? AND known_ids IS NOT NULL',
        )
        .all(scope, row.date, row.status, row.details) as { id: number; known_ids: string }[];
      for (const o of others) {
        const known = JSON.parse(o.known_ids) as string[];
        if (!known.includes(entryId))
          this.db
            .prepare('UPDATE outbox SET known_ids = ? WHERE id = ?')
            .run(JSON.stringify([...known, entryId]), o.id);
      }
      return true;
    })();
  }

  /** Keeps why a waiting item was not sent this time (the service away, 429, …); it stays waiting. */
  noteWaiting(id: number, error: string): void {
    this.db.prepare("UPDATE outbox SET error = ? WHERE id = ? AND state = 'waiting'").run(error, id);
  }

  /** Marks the item refused by the service with its message; it is not sent again. */
  refuse(id: number, error: string): void {
    this.db.prepare("UPDATE outbox SET state = 'refused', error = ? WHERE id = ?").run(error, id);
  }

  /**
   * An item corrected by the person: its fields replaced and waiting again, as if new (`attempts`
   * 0 and no known ids: a refused send recorded nothing, and a waiting one was looked up first by
   * the caller, so there is nothing to look up). Answers false when the scope has no such item.
   */
  revise(scope: string, id: number, entry: OutboxEntry): boolean {
    return (
      this.db
        .prepare(
          "UPDATE outbox SET date = ?, status = ?, details = ?, state = 'waiting', error = NULL, attempts = 0, known_ids = NULL WHERE scope = ? AND id = ?",
        )
        .run(entry.date, entry.status, entry.details, scope, id).changes > 0
    );
  }

  /** Takes the item out of the outbox (recorded, or discarded by the person). Answers whether it was there. */
  remove(scope: string, id: number): boolean {
    return this.db.prepare('DELETE FROM outbox WHERE scope = ? AND id = ?').run(scope, id).changes > 0;
  }

  close(): void {
    this.db.close();
  }
}
