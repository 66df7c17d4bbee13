import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unreachableGateway } from '../../testing/kit.js';
import { openQueueDatabase } from '../../queue/db.js';
import { UploadQueue } from '../../queue/queue.js';
import { fillQueue } from '../../testing/fill-queue.js';
import type { EngineEvent } from '../engine.js';
import { whenAt } from '../../../shared/when.js';
import { UploadEngine } from '../engine.js';

const work = mkdtempSync(join(tmpdir(), 'hold-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the queue-wide holds', () => {
  it("start nothing while the timetable holds; a person's hold comes first and ends apart from it", async () => {
    const queue = new UploadQueue(openQueueDatabase(join(work, 'q.db')).db);
    fillQueue(queue, 2);
    // Nothing listens there: a file that started would fail or wait for a retry, not stay due.
    const gateway = unreachableGateway();
    const engine = new UploadEngine({ queue, gateway });
    const events: EngineEvent[] = [];
    engine.on((e) => events.push(e));
    const evening = new Date(Date.now() + 3600_000).toISOString();
    engine.holds.byTimetable(evening);
    expect(engine.holds.current).toEqual({ until: evening, by: 'timetable' });
    const summary = await engine.drain();
    expect(summary.waiting.map((f) => [f.state, f.attempts, f.nextAttemptAt])).toEqual(
      Array(4).fill(['pending', 0, null]),
    );
    expect(events.filter((e) => e.type === 'file')).toEqual([]);
    expect(events.filter((e) => e.type === 'warning').map((e) => e.message)).toEqual([
      `Paused by the timetable until ${whenAt(evening)}: no upload starts before then (files paused one by one stay paused after it)`,
    ]);

    engine.holds.holdUntil(null);
    expect(engine.holds.current).toEqual({ until: null, by: 'person' });
    engine.holds.release();
    expect(engine.holds.current).toEqual({ until: evening, by: 'timetable' });
    engine.holds.byTimetable(evening); // the timetable's tick again: nothing written
    engine.holds.byTimetable(undefined);
    expect(engine.holds.current).toBeNull();
    expect(queue.activity.list().map((e) => [e.kind, e.message.split(':')[0]])).toEqual([
      ['held', `Paused by the timetable until ${whenAt(evening)}`.split(':')[0]],
      ['held', 'Paused until resumed'],
      ['released', 'Hold ended (by a person); files paused one by one stay paused'],
      ['released', 'Hold ended (by the timetable); files paused one by one stay paused'],
    ]);
    expect(events.filter((e) => e.type === 'hold').map((e) => e.hold?.by ?? null)).toEqual([
      'timetable',
      'person',
      'timetable',
      null,
    ]);
  });

  it("forgets a timetable hold left by a process that stopped when the queue opens again; a person's stays", () => {
    const queue = new UploadQueue(openQueueDatabase(join(work, 'reopen.db')).db);
    const until = new Date(Date.now() + 3600_000).toISOString();
    queue.meta.setHold('timetable', until);
    const gateway = unreachableGateway();
    expect(new UploadEngine({ queue, gateway }).holds.current).toBeNull();
    queue.meta.setHold('person', until);
    expect(new UploadEngine({ queue, gateway }).holds.current).toEqual({ until, by: 'person' });
  });
});
