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
  {
    version: 3,
    name: 'durable retry schedule, queue metadata and the activity log',
    up(db) {
      // The retry schedule lives in the queue so that a restart, the desktop app and the CLI all
      // honour it: a file or capture that failed for a passing reason waits, `pending`/`queued`,
      // until `next_attempt_at` (ms since epoch; NULL: now). `transient` says whether the last
      // error may pass by itself; `attempts` counts automatic tries since the last success.
      db.exec(`
        ALTER TABLE files ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE files ADD COLUMN next_attempt_at INTEGER;
        ALTER TABLE files ADD COLUMN transient INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE captures ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE captures ADD COLUMN next_attempt_at INTEGER;
        CREATE INDEX files_due ON files (state, next_attempt_at);
        CREATE INDEX captures_due ON captures (state, next_attempt_at);
        CREATE TABLE queue_meta (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL
        );
        CREATE TABLE activity (
          id INTEGER PRIMARY KEY,
          at TEXT NOT NULL,
          capture_row INTEGER,
          file_id INTEGER,
          subject TEXT NOT NULL,
          kind TEXT NOT NULL,
          message TEXT NOT NULL
        );
        CREATE INDEX activity_by_time ON activity (at);
      `);
    },
  },
  {
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
  },
  {
    version: 5,
    name: 'bytes and parts stored per file, kept by triggers',
    up(db) {
      // The queue screen and its totals read every file at once (10,000 files, a million parts):
      // summing parts per file on each read does not scale, so each file carries the bytes and
      // parts storage accepted, kept exact by triggers on whichever path sets or clears an ETag.
      db.exec(`
        ALTER TABLE files ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE files ADD COLUMN stored_parts INTEGER NOT NULL DEFAULT 0;
        UPDATE files SET
          stored_bytes = (SELECT COALESCE(SUM(size), 0) FROM parts WHERE file_id = files.id AND etag IS NOT NULL),
          stored_parts = (SELECT COUNT(*) FROM parts WHERE file_id = files.id AND etag IS NOT NULL);
        CREATE TRIGGER parts_etag_set AFTER UPDATE OF etag ON parts WHEN OLD.etag IS NULL AND NEW.etag IS NOT NULL
        BEGIN
          UPDATE files SET stored_bytes = stored_bytes + NEW.size, stored_parts = stored_parts + 1 WHERE id = NEW.file_id;
        END;
        CREATE TRIGGER parts_etag_cleared AFTER UPDATE OF etag ON parts WHEN OLD.etag IS NOT NULL AND NEW.etag IS NULL
        BEGIN
          UPDATE files SET stored_bytes = stored_bytes - OLD.size, stored_parts = stored_parts - 1 WHERE id = OLD.file_id;
        END;
        CREATE TRIGGER parts_inserted_stored AFTER INSERT ON parts WHEN NEW.etag IS NOT NULL
        BEGIN
          UPDATE files SET stored_bytes = stored_bytes + NEW.size, stored_parts = stored_parts + 1 WHERE id = NEW.file_id;
        END;
      `);
    },
  },
  {
    version: 6,
    name: 'registration: claimed apart from sent',
    up(db) {
      // add-capture (§4.4) is not idempotent, so a restart must tell a capture claimed for
      // registration but never sent (a crash or Ctrl-C while signing in: it goes back to `queued`)
      // from one whose request may have left (a person decides). `sent_at` (ISO 8601) is written,
      // and committed, just before the request's body leaves; NULL while only claimed. A row left
      // `registering` by an earlier version may have been sent: it keeps that meaning.
      db.exec(`
        ALTER TABLE captures ADD COLUMN sent_at TEXT;
        UPDATE captures SET sent_at = updated_at WHERE state = 'registering';
      `);
    },
  },
  {
    version: 7,
    name: 'a file replaced by the capture that registered its changed recording again',
    up(db) {
      // issue 17 #14: a file that changed on disk while it uploaded may be added again, which
      // registers a new capture; the old file then points at the capture that replaced it, so
      // the queue shows it as replaced instead of holding the recording twice in silence.
      // Rows queued before this migration replace nothing (NULL). Their fingerprint (migration
      // 4) may be NULL too: then only size and modification time tell a change (file-identity.ts).
      db.exec(`
        ALTER TABLE files ADD COLUMN replaced_by INTEGER REFERENCES captures (id) ON DELETE SET NULL;
      `);
    },
  },
  {
    version: 8,
    name: 'offloads: one row per card copied to the library, one per recording with its XXH64',
    up(db) {
      // issue 19 #3, #7: the record of each offload (when, which card, how many files, bytes,
      // verified or not) and each copy's hash, so a copy can be checked again before it is
      // uploaded or removed; `removed_at`, when the retention sweep deleted the copy
      // (main/offload/retention.ts). Times are ISO 8601; sizes bytes; mtime ms since 1970.
      db.exec(`
        CREATE TABLE offloads (
          id INTEGER PRIMARY KEY,
          card_path TEXT NOT NULL,
          card_name TEXT NOT NULL,
          destination TEXT NOT NULL,
          started_at TEXT NOT NULL,
          finished_at TEXT NOT NULL,
          files INTEGER NOT NULL,
          bytes INTEGER NOT NULL,
          verified INTEGER NOT NULL,
          mhl_path TEXT
        );
        CREATE TABLE offload_files (
          id INTEGER PRIMARY KEY,
          offload_id INTEGER NOT NULL REFERENCES offloads (id) ON DELETE CASCADE,
          source_path TEXT NOT NULL,
          copy_path TEXT NOT NULL,
          size INTEGER NOT NULL,
          mtime_ms REAL NOT NULL,
          xxh64 TEXT,
          verified INTEGER NOT NULL,
          error TEXT,
          removed_at TEXT
        );
        CREATE INDEX offload_files_copy ON offload_files (copy_path);
      `);
    },
  },
];

/** The schema version this build writes. */
export const LATEST_VERSION = MIGRATIONS.at(-1)!.version;
