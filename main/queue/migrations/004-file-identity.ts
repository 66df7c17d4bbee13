import type { Migration } from './migration.js';

/** Queue schema version 4: file identity: device, inode, status-change time, content fingerprint. Never edited once shipped (see index.ts). */
export const migration004: Migration = {
  version: 4,
  name: 'file identity: device, inode, status-change time, content fingerprint',
  up(db) {
    // What identifies a file's content on disk, so that a file changed while it uploads is never
    // stored as a mix, and one recording is queued once whatever the path it is reached by.
    // `changed` marks a file that failed because it changed: its recording may be added again.
    db.exec(`
      ALTER TABLE files ADD COLUMN dev TEXT;
      ALTER TABLE files ADD COLUMN ino TEXT;
      ALTER TABLE files ADD COLUMN ctime_ns TEXT;
      ALTER TABLE files ADD COLUMN fingerprint TEXT;
      ALTER TABLE files ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX files_by_inode ON files (dev, ino);
      CREATE INDEX files_by_fingerprint ON files (fingerprint);
      -- The next due capture or file is the first by id in its state: found without a scan.
      CREATE INDEX captures_by_state ON captures (state, id);
      CREATE INDEX files_by_state_id ON files (state, id);
    `);
  },
};
