import type Database from 'better-sqlite3';
import { statementCache } from './statements.js';

/**
 * A queue-wide hold: no file starts uploading while it is in force, whatever its own state.
 * `until` (ISO 8601) is when it ends by itself, null for "until a person resumes"; `by` says who
 * set it: a person ("Pause until 07:00") or the bandwidth timetable's `pause` hours. It is apart
 * from a file's own `paused` state, so ending it never resumes a file a person paused.
 */
export interface QueueHold {
  until: string | null;
  by: 'person' | 'timetable';
}

/**
 * An outage the running engine sees (main/engine/progress/progress.ts Outage): part requests failing for a
 * passing reason at `storage` or the `gateway` since `since` (ms since epoch), `cause` in the
 * service's words. Kept in the queue so another process (`capture-uploader status`) says what the
 * screen says.
 */
export interface StoredOutage {
  where: 'storage' | 'gateway';
  since: number;
  cause: string;
}

/** The `queue_meta` key of the outage the running engine sees. */
const OUTAGE_KEY = 'outage';

/**
 * The `queue_meta` key of the first capture row of the batch: the captures added since the queue
 * last held no unfinished file (docs/progress-batch.md). Absent: every row is in the batch.
 */
export const BATCH_FROM_KEY = 'batchFrom';

/** The `queue_meta` key of the refusal of the credentials that stops the running engine's queue. */
const BLOCKED_KEY = 'blocked';

/** The `queue_meta` keys of the two holds: a person's outlives restarts; the timetable's is shown by `status` and set again at each start. */
const HOLD_KEYS = { person: 'hold', timetable: 'timetableHold' } as const;

/**
 * Small facts about the queue as a whole (table `queue_meta`, migration 3), stored as JSON by
 * key: for example `partSize`, the part size in bytes the service last gave (§4.4 manifest), which
 * intake uses to refuse files that would need more than 10,000 parts, and the queue-wide holds
 * (QueueHold), so a hold outlives a restart and the CLI's `status` can say it, and the outage the
 * running engine sees (StoredOutage) and why it stopped the queue (`blocked`).
 */
export class QueueMeta {
  constructor(
    db: Database.Database,
    private readonly sql: (text: string) => Database.Statement = statementCache(db),
  ) {}

  /** The value stored under `key`, or undefined. */
  get<T>(key: string): T | undefined {
    const r = this.sql('SELECT value FROM queue_meta WHERE key = ?').get(key) as { value: string } | undefined;
    return r ? (JSON.parse(r.value) as T) : undefined;
  }

  /** Stores `value` (JSON-serialisable) under `key`. Throws SqliteError on a storage failure. */
  set(key: string, value: unknown): void {
    this.sql(
      'INSERT INTO queue_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ).run(key, JSON.stringify(value));
  }

  /** Removes `key`. Throws SqliteError on a storage failure. */
  delete(key: string): void {
    this.sql('DELETE FROM queue_meta WHERE key = ?').run(key);
  }

  /**
   * The hold set `by` a person or the timetable, or null. One whose `until` is at or before `now`
   * (ms since epoch) has ended and reads as null, whether or not a timer cleared it yet.
   */
  hold(by: QueueHold['by'], now = Date.now()): QueueHold | null {
    const stored = this.get<{ until: string | null }>(HOLD_KEYS[by]);
    if (!stored) return null;
    if (stored.until !== null && Date.parse(stored.until) <= now) return null;
    return { until: stored.until, by };
  }

  /** The hold in force at `now`: a person's first (it says more), else the timetable's; null when none. */
  holdInForce(now = Date.now()): QueueHold | null {
    return this.hold('person', now) ?? this.hold('timetable', now);
  }

  /** The outage the running engine recorded (OutageRecord), or null when storage and the gateway answer. */
  outage(): StoredOutage | null {
    return this.get<StoredOutage>(OUTAGE_KEY) ?? null;
  }

  /** Records the outage seen (null: over). Throws SqliteError on a storage failure. */
  setOutage(outage: StoredOutage | null): void {
    if (outage === null) this.delete(OUTAGE_KEY);
    else this.set(OUTAGE_KEY, outage);
  }

  /**
   * Why the running engine stopped the whole queue (the service refuses its credentials: the
   * engine's `blocked`, main/engine/outages/block-record.ts), or null. Kept so `capture-uploader status`,
   * another process, says "Needs you" when the app does. Holds no secret: the
   * engine's message names the setting to fix and the service's answer, never a password or token.
   */
  blocked(): string | null {
    return this.get<string>(BLOCKED_KEY) ?? null;
  }

  /** Records why the queue is stopped (null: it is not). Throws SqliteError on a storage failure. */
  setBlocked(message: string | null): void {
    if (message === null) this.delete(BLOCKED_KEY);
    else this.set(BLOCKED_KEY, message);
  }

  /** Sets (`until` ISO 8601 or null for open-ended) or ends (`undefined`) the hold of `by`. Throws SqliteError on a storage failure. */
  setHold(by: QueueHold['by'], until: string | null | undefined): void {
    if (until === undefined) this.delete(HOLD_KEYS[by]);
    else this.set(HOLD_KEYS[by], { until });
  }
}
