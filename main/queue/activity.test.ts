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

describe('the activity log is pruned', () => {
  it(`keeps ${ACTIVITY_KEEP_DAYS} days, or the newest lines up to a size`, () => {
    const q = open('prune');
    const now = Date.UTC(2026, 10, 25);
    for (const d of [400, 120, 91, 89, 30, 1, 0]) line(q, d, now);
    expect(q.activity.prune({ now })).toBe(3);
    expect(q.activity.list().map((e) => e.message)).toEqual(['89 days ago', '30 days ago', '1 days ago', '0 days ago']);
    expect(q.activity.prune({ now, maxEntries: 2 })).toBe(2);
    expect(q.activity.list().map((e) => e.message)).toEqual(['1 days ago', '0 days ago']);
    expect(q.activity.prune({ now })).toBe(0);
  });

  it('prunes when an engine opens the queue', () => {
    const q = open('at-open');
    for (const d of [200, 100, 5]) line(q, d);
    const gateway = unreachableGateway();
    new UploadEngine({ queue: q, gateway });
    expect(q.activity.list().map((e) => e.message)).toEqual(['5 days ago']);
  });

  it('prunes daily while a drain runs', async () => {
    const start = Date.UTC(2026, 10, 25, 12);
    vi.useFakeTimers({ now: start, toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const q = open('daily');
    const gateway = unreachableGateway();
    const engine = new UploadEngine({ queue: q, gateway });
    line(q, ACTIVITY_KEEP_DAYS - 0.5, start); // still kept at open; older than the limit half a day later
    engine.holds.holdUntil(null); // a drain with `wait` stays up while the queue is held
    const drained = engine.drain({ wait: true });
    await vi.advanceTimersByTimeAsync(DAY - 60_000);
    expect(q.activity.list().map((e) => e.message)).toContain(`${ACTIVITY_KEEP_DAYS - 0.5} days ago`);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(q.activity.list().map((e) => e.message)).not.toContain(`${ACTIVITY_KEEP_DAYS - 0.5} days ago`);
    engine.holds.release();
    await drained;
  });
});
