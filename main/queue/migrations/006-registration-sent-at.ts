import type { Migration } from './migration.js';

/** Queue schema version 6: registration: claimed apart from sent. Never edited once shipped (see index.ts). */
export const migration006: Migration = {
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
};
