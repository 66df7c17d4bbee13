import type { Migration } from './migration.js';

/** Queue schema version 18: the capture plan. Never edited once shipped (see index.ts). */
export const migration018: Migration = {
  version: 18,
  name: 'capture_plan: the walks planned per camera and day (main/queue/plans.ts)',
  up(db) {
    // One row per camera and day of the plan (shared/capture-plan.ts PlanDay), in the order it was
    // written; `camera` NULL for any camera, `day` a date (YYYY-MM-DD), a weekday or `weekdays`,
    // `walks_json` the walks in order. The plan's own settings (autoRegister, when it was written)
    // are in queue_meta. It lives with the queue because a matching card is registered into it.
    db.exec(`
      CREATE TABLE capture_plan (
        position INTEGER PRIMARY KEY,
        camera TEXT,
        day TEXT NOT NULL,
        walks_json TEXT NOT NULL
      );
      CREATE UNIQUE INDEX capture_plan_camera_day ON capture_plan (ifnull(camera, ''), day);
    `);
  },
};
