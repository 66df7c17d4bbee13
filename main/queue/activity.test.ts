import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { unreachableGateway } from '../testing/kit.js';
import { UploadEngine } from '../engine/engine.js';
import { ACTIVITY_KEEP_DAYS } from './activity.js';
import { openQueueDatabase } from './db.js';
import { UploadQueue } from './queue.js';

const work = mkdtempSync(join(tmpdir(), 'activity-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
afterEach(() => vi.useRealTimers());

const DAY = 86_400_000;
const open = (name: string) => new UploadQueue(openQueueDatabase(join(work, `${name}.db`)).db);
const line = (q: UploadQueue, daysAgo: number, now = Date.now()) =>
  q.activity.add({
    at: new Date(now - daysAgo * DAY).toISOString(),
    captureRow: null,
    fileId: null,
    subject: 'queue',
    kind: 'blocked',
    message: `${daysAgo} days ago`,
  });

/** Lines on each of `days` days ago (one a day), before `now`. */
const days = (q: UploadQueue, list: readonly number[], now: number) => list.forEach((d) => line(q, d, now));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('the activity log is pruned', () => {
  it(`keeps the newest ${ACTIVITY_KEEP_DAYS} days that have lines, or the newest lines up to a size`, () => {
    const q = open('prune');
    const now = Date.UTC(2026, 10, 25);
    // 92 days with lines: today, 1 … 88 days ago, and 120, 400 and 401 days ago.
    days(q, [401, 400, 120, ...range(1, 88).reverse(), 0], now);
    expect(q.activity.prune({ now })).toBe(2);
    expect(q.activity.list().map((e) => e.message)[0]).toBe('120 days ago');
    expect(q.activity.list()).toHaveLength(ACTIVITY_KEEP_DAYS);
    expect(q.activity.prune({ now, maxEntries: 2 })).toBe(ACTIVITY_KEEP_DAYS - 2);
    expect(q.activity.list().map((e) => e.message)).toEqual(['1 days ago', '0 days ago']);
    expect(q.activity.prune({ now })).toBe(0);
  });

  it('keeps its history whatever the clock says: at 2099 one real day goes for the day written then; at 1970 nothing', () => {
    const q = open('clock');
    const real = Date.UTC(2026, 10, 25, 12);
    days(q, range(0, ACTIVITY_KEEP_DAYS - 1).reverse(), real);
    const ahead = Date.UTC(2099, 0, 1, 12);
    expect(q.activity.prune({ now: ahead })).toBe(0);
    line(q, 0, ahead);
    expect(q.activity.prune({ now: ahead })).toBe(1);
    expect(q.activity.list().map((e) => e.message)[0]).toBe(`${ACTIVITY_KEEP_DAYS - 2} days ago`);
    // Back at the real time: the 2099 day is one of the newest days that have lines, and stays.
    expect(q.activity.prune({ now: real })).toBe(0);
    // At 1970, its own line (the oldest day there is) is not taken for an old one.
    const behind = Date.UTC(1970, 0, 1, 12);
    line(q, 0, behind);
    expect(q.activity.prune({ now: behind })).toBe(0);
    expect(q.activity.list()).toHaveLength(ACTIVITY_KEEP_DAYS + 1);
    expect(q.activity.newestAt()).toBe(new Date(ahead).toISOString());
  });

  it.each([
    [
      'set back a day',
      -DAY,
      /^The computer's clock reads 2026-11-24 12:00 UTC, before this queue's newest entry \(2026-11-25 12:00 UTC\): it looks wrong; set the clock/,
    ],
    [
      'set years ahead',
      73 * 365 * DAY,
      /^The computer's clock reads 2099-.+, years after this queue's newest entry \(2026-11-25 12:00 UTC\): if that is wrong, set the clock/,
    ],
  ])(
    'says once, when an engine opens the queue, that the clock looks wrong (%s); a minute back is fine',
    (_what, by, said) => {
      const q = open(`clock-${by}`);
      const newest = Date.UTC(2026, 10, 25, 12);
      line(q, 0, newest);
      const warned: string[] = [];
      const log = { info: () => {}, warn: (m: string) => warned.push(m) };
      vi.useFakeTimers({ now: newest - 60_000, toFake: ['Date'] });
      new UploadEngine({ queue: q, gateway: unreachableGateway(), log });
      expect(warned).toEqual([]);
      vi.setSystemTime(newest + by);
      new UploadEngine({ queue: q, gateway: unreachableGateway(), log });
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatch(said);
      expect(q.activity.list()).toHaveLength(1);
    },
  );

  it('prunes when an engine opens the queue', () => {
    const q = open('at-open');
    days(q, range(0, ACTIVITY_KEEP_DAYS + 1).reverse(), Date.now());
    const gateway = unreachableGateway();
    new UploadEngine({ queue: q, gateway });
    expect(q.activity.list().map((e) => e.message)[0]).toBe(`${ACTIVITY_KEEP_DAYS - 1} days ago`);
  });

  it('prunes daily while a drain runs', async () => {
    const start = Date.UTC(2026, 10, 25, 12);
    vi.useFakeTimers({ now: start, toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const q = open('daily');
    days(q, range(0, ACTIVITY_KEEP_DAYS - 1).reverse(), start); // the newest 90 days: all kept at open
    const gateway = unreachableGateway();
    const engine = new UploadEngine({ queue: q, gateway });
    const oldest = `${ACTIVITY_KEEP_DAYS - 1} days ago`;
    engine.holds.holdUntil(null); // a drain with `wait` stays up while the queue is held
    const drained = engine.drain({ wait: true });
    line(q, -1, start); // tomorrow's line: a day more than the log keeps
    await vi.advanceTimersByTimeAsync(DAY - 60_000);
    expect(q.activity.list().map((e) => e.message)).toContain(oldest);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(q.activity.list().map((e) => e.message)).not.toContain(oldest);
    engine.holds.release();
    await drained;
  });
});
