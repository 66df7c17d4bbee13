import type { Migration } from './migration.js';

/** Queue schema version 3: durable retry schedule, queue metadata and the activity log. Never edited once shipped (see index.ts). */
export const migration003: Migration = {
  version: 3,
  name: 'durable retry schedule, queue metadata and the activity log',
  up(db) {
    // The retry schedule lives in the queue so that a restart, the desktop app and the CLI all
    // honour it: a file or capture that failed for a passing reason waits, `pending`/`queued`,
    // until `next_attempt_at` (ms since epoch; NULL: now). `transient` says whether the last
    // error may pass by itself; `attempts` counts automatic tries since the last success.
    db.exec(`
      ALTER TABLE files ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE files ADD COLUMN next_attempt_at INTEGER;
      ALTER TABLE files ADD COLUMN transient INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE captures ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE captures ADD COLUMN next_attempt_at INTEGER;
      CREATE INDEX files_due ON files (state, next_attempt_at);
      CREATE INDEX captures_due ON captures (state, next_attempt_at);
      CREATE TABLE queue_meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE activity (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        capture_row INTEGER,
        file_id INTEGER,
        subject TEXT NOT NULL,
        kind TEXT NOT NULL,
        message TEXT NOT NULL
      );
      CREATE INDEX activity_by_time ON activity (at);
    `);
  },
};
