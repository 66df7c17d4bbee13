import type { Migration } from './migration.js';

/** Queue schema version 16: an index of the activity log's warnings. Never edited once shipped (see index.ts). */
export const migration016: Migration = {
  version: 16,
  name: 'activity_warnings: the captures with a warning, without a scan of the log',
  up(db) {
    // The queue's totals count the captures with warnings (main/queue/totals.ts) every time they
    // are read, so that every place that says "done" says so too; the log holds up to 100,000
    // lines, of which warnings are few.
    db.exec(`
      CREATE INDEX activity_warnings ON activity (capture_row) WHERE kind = 'warning';
    `);
  },
};
