import type { Migration } from './migration.js';

/** Queue schema version 7: a file replaced by the capture that registered its changed recording again. Never edited once shipped (see index.ts). */
export const migration007: Migration = {
  version: 7,
  name: 'a file replaced by the capture that registered its changed recording again',
  up(db) {
    // A file that changed on disk while it uploaded may be added again, which
    // registers a new capture; the old file then points at the capture that replaced it, so
    // the queue shows it as replaced instead of holding the recording twice in silence.
    // Rows queued before this migration replace nothing (NULL). Their fingerprint (migration
    // 4) may be NULL too: then only size and modification time tell a change (file-identity.ts).
    db.exec(`
      ALTER TABLE files ADD COLUMN replaced_by INTEGER REFERENCES captures (id) ON DELETE SET NULL;
    `);
  },
};
