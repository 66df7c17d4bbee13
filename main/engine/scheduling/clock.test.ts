import { Database } from '../../testing/queue-backdoors.js';
import { describe, expect, it } from 'vitest';
import { QueueClock } from './clock.js';

/** The two tables' retry columns, as the queue has them (migration 3). */
function db(): Database.Database {
  const d = new Database(':memory:');
  d.exec(`CREATE TABLE files (id INTEGER PRIMARY KEY, state TEXT, next_attempt_at INTEGER);
          CREATE TABLE captures (id INTEGER PRIMARY KEY, state TEXT, next_attempt_at INTEGER);`);
  return d;
}
const times = (d: Database.Database, table: string) =>
  (d.prepare(`SELECT next_attempt_at AS t FROM ${table} ORDER BY id`).all() as { t: number | null }[]).map((r) => r.t);

describe('QueueClock', () => {
  it('a wall-clock step moves the stored retry times by the step, so every wait keeps its length', () => {
    const d = db();
    let wall = 1_000_000_000;
    let mono = 5000;
    const clock = new QueueClock(
      d,
      () => wall,
      () => mono,
    );
    d.prepare(`INSERT INTO files (state, next_attempt_at) VALUES ('pending', ?), ('pending', NULL), ('failed', ?)`).run(
      wall + 15_000,
      wall + 15_000,
    );
    d.prepare(`INSERT INTO captures (state, next_attempt_at) VALUES ('queued', ?)`).run(wall + 30_000);
    mono += 1000;
    wall += 1000 - 3_600_000; // a second later the clock is set back an hour
    expect(clock.check()).toBe(-3_600_000);
    expect(times(d, 'files')).toEqual([wall + 14_000, null, 1_000_015_000]); // a failed file's time is not a wait
    expect(times(d, 'captures')).toEqual([wall + 29_000]);
    expect(clock.now()).toBe(wall);
    mono += 500;
    wall += 500 + 900; // drift below the tolerance is no step
    expect(clock.check()).toBe(0);
    expect(clock.now()).toBe(wall - 900);
  });

  it('at start, a stored time further ahead than the longest wait is a step made while nothing ran: due now', () => {
    const d = db();
    const wall = 2_000_000_000;
    const clock = new QueueClock(
      d,
      () => wall,
      () => 0,
    );
    d.prepare(`INSERT INTO files (state, next_attempt_at) VALUES ('pending', ?), ('pending', ?)`).run(
      wall + 3_600_000 + 10_000,
      wall + 10 * 60_000,
    );
    d.prepare(`INSERT INTO captures (state, next_attempt_at) VALUES ('queued', ?)`).run(wall + 3_600_000);
    expect(clock.clampFuture(15 * 60_000)).toBe(2);
    expect(times(d, 'files')).toEqual([wall, wall + 10 * 60_000]);
    expect(times(d, 'captures')).toEqual([wall]);
  });
});
