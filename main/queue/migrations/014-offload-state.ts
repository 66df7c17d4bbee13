import type { Migration } from './migration.js';

/** Queue schema version 14: an offload recorded as it goes, with its state. Never edited once shipped (see index.ts). */
export const migration014: Migration = {
  version: 14,
  name: 'offloads.state: an offload recorded when it starts and each file as it is checked',
  up(db) {
    // An offload's row is written when it starts ('copying'), each file's row as
    // it is verified or fails, and the row ends 'finished' or, found still 'copying' at the next
    // queue open (the app stopped mid-import), 'interrupted', so the copies verified before a
    // crash stay known to the retention sweep, the library's use and the copy holds
    // (main/offload/record.ts). `finished_at` is NULL until the offload finishes, so the table is
    // rebuilt (SQLite cannot drop NOT NULL): both tables are built anew, the child pointing at the
    // new parent, the old ones dropped child first (so ON DELETE CASCADE removes nothing), and the
    // new ones renamed into place (SQLite rewrites the child's reference with the rename).
    // Rows of earlier versions ended with their import: 'finished'.
    db.exec(`
      CREATE TABLE offloads_v14 (
        id INTEGER PRIMARY KEY,
        card_path TEXT NOT NULL,
        card_name TEXT NOT NULL,
        destination TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        files INTEGER NOT NULL,
        bytes INTEGER NOT NULL,
        verified INTEGER NOT NULL,
        mhl_path TEXT,
        state TEXT NOT NULL DEFAULT 'finished' CHECK (state IN ('copying', 'finished', 'interrupted'))
      );
      INSERT INTO offloads_v14 (id, card_path, card_name, destination, started_at, finished_at, files, bytes, verified, mhl_path, state)
        SELECT id, card_path, card_name, destination, started_at, finished_at, files, bytes, verified, mhl_path, 'finished' FROM offloads;
      CREATE TABLE offload_files_v14 (
        id INTEGER PRIMARY KEY,
        offload_id INTEGER NOT NULL REFERENCES offloads_v14 (id) ON DELETE CASCADE,
        source_path TEXT NOT NULL,
        copy_path TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ms REAL NOT NULL,
        xxh64 TEXT,
        verified INTEGER NOT NULL,
        error TEXT,
        removed_at TEXT
      );
      INSERT INTO offload_files_v14 SELECT id, offload_id, source_path, copy_path, size, mtime_ms, xxh64, verified, error, removed_at FROM offload_files;
      DROP TABLE offload_files;
      DROP TABLE offloads;
      ALTER TABLE offloads_v14 RENAME TO offloads;
      ALTER TABLE offload_files_v14 RENAME TO offload_files;
      CREATE INDEX offload_files_copy ON offload_files (copy_path);
      CREATE INDEX offload_files_by_offload ON offload_files (offload_id);
      CREATE INDEX offload_files_source ON offload_files (source_path) WHERE verified = 1 AND removed_at IS NULL;
      CREATE INDEX offloads_copying ON offloads (id) WHERE state = 'copying';
    `);
  },
};
