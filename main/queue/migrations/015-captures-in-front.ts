import type { Migration } from './migration.js';

/** Queue schema version 15: an index of the captures a person moved to the front. Never edited once shipped (see index.ts). */
export const migration015: Migration = {
  version: 15,
  name: 'captures_in_front: the few captures with a priority above the queue order',
  up(db) {
    // The files due are taken in three ordered runs (main/queue/schedule.ts dueFiles; decision
    // record docs/decisions/0005-fair-order.md): those of captures moved to the front, then retries
    // due, then files not yet tried. The first run starts from these few captures instead of a
    // scan of every capture; rows queued before this migration all have priority 0 or more.
    db.exec(`
      CREATE INDEX captures_in_front ON captures (priority) WHERE priority > 0;
    `);
  },
};
