import type { Migration } from './migration.js';

/** Queue schema version 1: captures, files and parts. Never edited once shipped (see index.ts). */
export const migration001: Migration = {
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
};
