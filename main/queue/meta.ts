import type Database from 'better-sqlite3';
import { statementCache } from './statements.js';

/**
 * Small facts about the queue as a whole (table `queue_meta`, migration 3), stored as JSON by
 * key: for example `partSize`, the part size in bytes the service last gave (§4.4 manifest), which
 * intake uses to refuse files that would need more than 10,000 parts.
 */
export class QueueMeta {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: (text: string) => Database.Statement = statementCache(db),
  ) {}

  /** The value stored under `key`, or undefined. */
  get<T>(key: string): T | undefined {
    const r = this.sql('SELECT value FROM queue_meta WHERE key = ?').get(key) as { value: string } | undefined;
    return r ? (JSON.parse(r.value) as T) : undefined;
  }

  /** Stores `value` (JSON-serialisable) under `key`. Throws SqliteError on a storage failure. */
  set(key: string, value: unknown): void {
    this.sql('INSERT INTO queue_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
  }
}
