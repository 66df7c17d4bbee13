import type { Migration } from './migration.js';

/** Queue schema version 2: default sheet exports per project. Never edited once shipped (see index.ts). */
export const migration002: Migration = {
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
};
