import type { Migration } from './migration.js';

/** Queue schema version 13: a file placed from a card while its import still copies it, held until its copy verifies. Never edited once shipped (see index.ts). */
export const migration013: Migration = {
  version: 13,
  name: 'awaiting_copy: a file held until the import verifies its copy',
  up(db) {
    // A recording placed while its card is being imported is queued at the card's
    // path with this hold (1), committed before any work, so no part is read from the card. When
    // the import verifies its copy, the card imports moves the file to the copy and clears the hold
    // in one transaction (main/queue/copy-holds.ts); when the copy fails verification twice, or at
    // the next start (no import runs then), the hold is cleared and the file uploads from the
    // card. Rows queued before this migration are not held (0). The partial index finds the
    // few held files among thousands at each settlement.
    db.exec(`
      ALTER TABLE files ADD COLUMN awaiting_copy INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX files_awaiting_copy ON files (id) WHERE awaiting_copy = 1;
    `);
  },
};
