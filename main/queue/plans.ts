import type { CapturePlan, PlanView, PlanWalk } from '../../shared/capture-plan.js';
import type { QueueDatabase } from './db.js';

// The capture plan in queue.db (migration 18, table `capture_plan`; its settings in `queue_meta`):
// its reads and its writes. main/queue is the one owner of the file
// (docs/decisions/0016-queue-db-owner.md); the plan's rules are shared/capture-plan.ts.

/** The `queue_meta` key of the plan's settings: `{ autoRegister, updatedAt }`. */
const PLAN_META = 'capturePlan';

/**
 * The plan as stored: its days in the order written, whether a matching card goes to the queue
 * with no click, and when it was last written (ISO 8601, null when never). Reads only; throws
 * better-sqlite3's SqliteError when the queue cannot be read.
 */
export function readPlan(db: QueueDatabase): PlanView {
  const rows = db.prepare('SELECT camera, day, walks_json FROM capture_plan ORDER BY position').all() as {
    camera: string | null;
    day: string;
    walks_json: string;
  }[];
  const meta = db.prepare('SELECT value FROM queue_meta WHERE key = ?').get(PLAN_META) as { value: string } | undefined;
  const settings = meta ? (JSON.parse(meta.value) as { autoRegister?: boolean; updatedAt?: string }) : {};
  return {
    autoRegister: settings.autoRegister === true,
    days: rows.map((r) => ({ camera: r.camera, day: r.day, walks: JSON.parse(r.walks_json) as PlanWalk[] })),
    updatedAt: settings.updatedAt ?? null,
  };
}

/**
 * Replaces the whole plan with `plan` (already checked: shared/capture-plan.ts `capturePlan`), in
 * one transaction committed before it returns, and answers it as stored. `now` is when it was
 * written. Throws SqliteError when the queue cannot be written (nothing is changed then), or when
 * two days name the same camera and day (the unique index).
 */
export function writePlan(db: QueueDatabase, plan: CapturePlan, now = new Date()): PlanView {
  db.transaction(() => {
    db.prepare('DELETE FROM capture_plan').run();
    const insert = db.prepare('INSERT INTO capture_plan (position, camera, day, walks_json) VALUES (?, ?, ?, ?)');
    plan.days.forEach((d, i) => insert.run(i + 1, d.camera, d.day, JSON.stringify(d.walks)));
    db.prepare(
      'INSERT INTO queue_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ).run(PLAN_META, JSON.stringify({ autoRegister: plan.autoRegister, updatedAt: now.toISOString() }));
  })();
  return readPlan(db);
}
