import type { Migration } from './migration.js';

/** Queue schema version 9: a capture's place at the front of the queue. Never edited once shipped (see index.ts). */
export const migration009: Migration = {
  version: 9,
  name: 'a capture moved to the front of the queue',
  up(db) {
    // "The site manager needs floor 3 first": a person moves a capture to the front, and the
    // registrar and the scheduler take the highest priority first (main/queue/schedule.ts). 0 is
    // the queue's own order (by id); a capture moved to the front gets one more than the highest
    // so far, so the last one moved goes first. Rows queued before this migration keep 0.
    db.exec(`
      ALTER TABLE captures ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
    `);
  },
};
