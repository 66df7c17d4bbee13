import type { Migration } from './migration.js';

/** Queue schema version 11: each offloaded copy's part MD5s, computed while it was copied. Never edited once shipped (see index.ts). */
export const migration011: Migration = {
  version: 11,
  name: 'part_md5s: the MD5 of each upload part of an offloaded copy, from the copy pass',
  up(db) {
    // The offload hashes each upload part (MD5, for the part size the gateway gave
    // last) as it copies the card, so the upload of the copy neither hashes the bytes again nor
    // reads the file to rebuild a lost part's ETag (main/offload/part-md5.ts). A row is used only
    // for a file queued with the identity recorded here (path, size, mtime in whole ms, device
    // and inode as decimal strings, status-change time in ns) and registered with `part_size`;
    // `md5s` holds 16 bytes per part, in part order. `created_at` is ISO 8601.
    db.exec(`
      CREATE TABLE part_md5s (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ms INTEGER NOT NULL,
        dev TEXT NOT NULL,
        ino TEXT NOT NULL,
        ctime_ns TEXT NOT NULL,
        part_size INTEGER NOT NULL,
        md5s BLOB NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX part_md5s_path ON part_md5s (path);
    `);
  },
};
