import type { Migration } from './migration.js';

/** Queue schema version 5: bytes and parts stored per file, kept by triggers. Never edited once shipped (see index.ts). */
export const migration005: Migration = {
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
};
