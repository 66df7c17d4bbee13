import type { Migration } from '../queue/migrations/index.js';

// Numbered migrations of records.db (the office workspace's cache and outbox), in the queue's
// manner: applied in order inside the transaction that sets `user_version`, never edited once
// shipped. records.db is its own file so that the upload queue's schema and lock stay its own.
export const RECORDS_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'cached reads and the outbox of progress entries',
    up(db) {
      // `scope` names the service and project a row belongs to (never a secret), so that
      // switching projects or services never shows one's records as another's.
      // `as_of` is when the service last gave this answer (ISO 8601 UTC).
      // An outbox row is an entry recorded while the service could not be reached; `attempts`
      // counts sends that may have reached the service, so a row with attempts > 0 is looked up
      // on its date before it is sent again (progress-records-interface.md §4 POST /progress is
      // not idempotent). `state` 'refused' keeps a 4xx answer for the person to read.
      db.exec(`
        CREATE TABLE cached (
          scope TEXT NOT NULL,
          kind TEXT NOT NULL,
          json TEXT NOT NULL,
          as_of TEXT NOT NULL,
          PRIMARY KEY (scope, kind)
        ) WITHOUT ROWID;
        CREATE TABLE outbox (
          id INTEGER PRIMARY KEY,
          scope TEXT NOT NULL,
          date TEXT NOT NULL,
          status TEXT NOT NULL,
          details TEXT NOT NULL,
          queued_at TEXT NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          state TEXT NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'refused')),
          error TEXT
        );
        CREATE INDEX outbox_by_scope ON outbox (scope, id);
      `);
    },
  },
  {
    version: 2,
    name: 'the ids an outbox entry found on its date before its first send',
    up(db) {
      // §2 Progress keeps nothing of the client's (no client id, no time), so an entry whose
      // answer was lost is found by its whole content: `known_ids` (a JSON array of entry ids)
      // holds the entries of the same date, status and details that were there before its first
      // send, and only one not among them is taken as its own
      // (docs/decisions/0027-progress-lost-answer-match.md). NULL: no send yet, or a row sent before
      // this column existed (then any entry of the same content is taken as its own).
      db.exec('ALTER TABLE outbox ADD COLUMN known_ids TEXT');
    },
  },
];
