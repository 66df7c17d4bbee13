import type { Migration } from './migration.js';

/** Queue schema version 10: a part sent in full whose answer had not come when its work stopped. Never edited once shipped (see index.ts). */
export const migration010: Migration = {
  version: 10,
  name: 'parts: sent in full but unanswered when the work stopped',
  up(db) {
    // Storage keeps a part whose whole body arrived even when the client has gone,
    // and stores it only after its own work (MD5, encryption, replication). A part whose every
    // byte left this computer but whose answer had not come when a quit, pause or cancel stopped
    // it is marked here (ms since 1970, the wall clock, when the connection was given up), so the
    // next start asks the service again for a while before sending it a second time
    // (main/engine/parts/in-doubt.ts). NULL for every other part.
    db.exec('ALTER TABLE parts ADD COLUMN unanswered_at INTEGER');
  },
};
