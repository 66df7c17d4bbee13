import type { Migration } from './migration.js';

/** Queue schema version 12: an index on the child column of each foreign key that had none. Never edited once shipped (see index.ts). */
export const migration012: Migration = {
  version: 12,
  name: 'indexes on files.replaced_by and offload_files.offload_id, so deleting a parent row is a lookup',
  up(db) {
    // files.replaced_by (version 7) references captures ON DELETE SET NULL: every capture deleted
    // makes SQLite look for files that name it. Without an index that is a scan of every file per
    // capture, and "Clear completed" on 5,000 captures and 10,000 files took 2.3 s in one
    // transaction (npm run bench:queue -- --batch; asks ≤ 200 ms). SQLite's own advice:
    // index every foreign key's child column (https://sqlite.org/foreignkeys.html §3).
    // offload_files.offload_id (version 8) is the same case for a forgotten offload record.
    db.exec(`
      CREATE INDEX files_by_replaced_by ON files (replaced_by) WHERE replaced_by IS NOT NULL;
      CREATE INDEX offload_files_by_offload ON offload_files (offload_id);
    `);
  },
};
