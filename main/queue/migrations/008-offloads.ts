import type { Migration } from './migration.js';

/** Queue schema version 8: the record of each card offload and each copy's XXH64. Never edited once shipped (see index.ts). */
export const migration008: Migration = {
  version: 8,
  name: 'offloads: one row per card copied to the library, one per recording with its XXH64',
  up(db) {
    // The record of each offload (when, which card, how many files, bytes,
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
};
