import type { Database } from 'better-sqlite3';

/** One numbered schema change; `up` runs inside the transaction that sets `user_version` to `version`. */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

// Numbered migrations, applied in order, never edited once shipped (Signal Desktop's practice):
// a change to the schema is a new entry at the end.
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'captures, files and parts',
    up(db) {
      db.exec(`
        CREATE TABLE captures (
          id INTEGER PRIMARY KEY,
          state TEXT NOT NULL CHECK (state IN ('queued', 'registering', 'registration_unknown', 'registered', 'completed', 'failed', 'rejected')),
          label TEXT NOT NULL,
          project TEXT NOT NULL,
          structure TEXT NOT NULL,
          design TEXT,
          request_json TEXT NOT NULL,
          capture_id TEXT UNIQUE,
          error TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE TABLE files (
          id INTEGER PRIMARY KEY,
          capture_row INTEGER NOT NULL REFERENCES captures (id) ON DELETE CASCADE,
          frame_index INTEGER NOT NULL,
          path TEXT NOT NULL,
          file_name TEXT NOT NULL,
          content_type TEXT NOT NULL,
          size INTEGER NOT NULL CHECK (size > 0),
          mtime_ms INTEGER NOT NULL,
          state TEXT NOT NULL CHECK (state IN ('waiting', 'pending', 'uploading', 'paused', 'completed', 'failed', 'cancelled')),
          upload_id TEXT UNIQUE,
          part_size INTEGER,
          total_parts INTEGER,
          error TEXT,
          completed_at TEXT,
          UNIQUE (capture_row, frame_index)
        );
        CREATE INDEX files_by_state ON files (state);
        CREATE TABLE parts (
          file_id INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
          part_number INTEGER NOT NULL CHECK (part_number > 0),
          size INTEGER NOT NULL,
          etag TEXT,
          uploaded_at TEXT,
          PRIMARY KEY (file_id, part_number)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 2,
    name: 'default sheet exports per project',
    up(db) {
      // When the capture sheets were last exported (§4.2), to tell whether designs changed since (§4.3).
      db.exec(`
        CREATE TABLE sheet_exports (
          project TEXT PRIMARY KEY,
          requested_at TEXT NOT NULL,
          designs_updated_at TEXT
        );
      `);
    },
  },
];

/** The schema version this build writes. */
export const LATEST_VERSION = MIGRATIONS.at(-1)!.version;
