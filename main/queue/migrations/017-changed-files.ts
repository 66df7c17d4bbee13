import type { Migration } from './migration.js';

/** Queue schema version 17: an index of the files changed on disk and not replaced yet. Never edited once shipped (see index.ts). */
export const migration017: Migration = {
  version: 17,
  name: 'files_changed: the changed files a new capture may replace, without a scan of the queue',
  up(db) {
    // Every file queued asks for the changed files at its path or inode (UploadQueue.changedMatches);
    // the OR of the two defeats the other indexes, so without this each asked with a scan of every
    // file: a card of 10,000 files paid 10,000 scans of a growing table. Changed files are few.
    db.exec(`
      CREATE INDEX files_changed ON files (id) WHERE changed = 1 AND replaced_by IS NULL;
    `);
  },
};
