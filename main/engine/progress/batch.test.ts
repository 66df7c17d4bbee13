import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../shared/ipc.js';
import { unreachableGateway } from '../../testing/kit.js';
import { LiveQueue } from '../../service/live-queue.js';
import { openQueueDatabase } from '../../queue/db.js';
import { UploadQueue } from '../../queue/queue.js';
import { fillQueue } from '../../testing/fill-queue.js';
import type { EngineEvent } from '../engine.js';
import { UploadEngine } from '../engine.js';

// A person's batch on 10,000 files: one transaction, one activity line, one
// event. How fast it runs is printed by `npm run bench:queue`, not asserted here.

const work = mkdtempSync(join(tmpdir(), 'batch-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A queue of 5,000 registered pairs (10,000 pending files) and an engine over it; nothing is sent. */
function setUp(name: string) {
  const queue = new UploadQueue(openQueueDatabase(join(work, `${name}.db`)).db);
  const ids = fillQueue(queue, 5000);
  const gateway = unreachableGateway();
  const engine = new UploadEngine({ queue, gateway });
  const events: EngineEvent[] = [];
  engine.on((e) => events.push(e));
  const sent: { event: EventName; payload: unknown }[] = [];
  const live = new LiveQueue(
    queue,
    () => null,
    () => engine.holds.current,
    (event, payload) => sent.push({ event, payload }),
    0,
  );
  engine.on((e) => live.onEngine(e));
  const states = () => {
    const counts: Record<string, number> = {};
    for (const r of queue.db.prepare('SELECT state, COUNT(*) AS n FROM files GROUP BY state').all() as {
      state: string;
      n: number;
    }[])
      counts[r.state] = r.n;
    return counts;
  };
  const lines = () =>
    queue.db.prepare('SELECT kind, subject, message FROM activity ORDER BY id').all() as {
      kind: string;
      subject: string;
      message: string;
    }[];
  return { queue, ids, engine, events, live, sent, states, lines };
}

describe("a person's batch on 10,000 files", () => {
  it('pauses all in one transaction: every row paused, one event out, one activity line; resume all likewise', () => {
    const { ids, engine, events, live, sent, states, lines } = setUp('pause');
    expect(states()).toEqual({ pending: 10_000 });
    expect(engine.pauseAll()).toBe(10_000);
    expect(states()).toEqual({ paused: 10_000 });
    expect(events.filter((e) => e.type !== 'activity').map((e) => e.type)).toEqual(['batch']);
    expect((events[0] as Extract<EngineEvent, { type: 'batch' }>).fileIds.toSorted((a, b) => a - b)).toEqual(
      ids.toSorted((a, b) => a - b),
    );
    expect(lines()).toEqual([{ kind: 'paused', subject: 'queue', message: 'Paused 10,000 files, by a person' }]);
    // The screen gets it as one rows message with every file as committed.
    live.flush();
    const rows = sent
      .filter((s) => s.event === 'capture:event.rows')
      .map((s) => s.payload as EventPayload<'capture:event.rows'>);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.files).toHaveLength(10_000);
    expect(new Set(rows[0]!.files.map((f) => f.state))).toEqual(new Set(['paused']));
    expect(rows[0]!.totals).toMatchObject({ paused: 10_000, queued: 0 });
    // The bulk read gives the rows exactly as the row-by-row view does.
    expect(rows[0]!.files.toSorted((a, b) => a.id - b.id)).toEqual(live.view().files.toSorted((a, b) => a.id - b.id));

    events.length = 0;
    expect(engine.resumeAll()).toBe(10_000);
    expect(states()).toEqual({ pending: 10_000 });
    expect(events.filter((e) => e.type !== 'activity').map((e) => e.type)).toEqual(['batch']);
    expect(lines().at(-1)).toEqual({ kind: 'resumed', subject: 'queue', message: 'Resumed 10,000 files, by a person' });
    expect(lines()).toHaveLength(2);
  });

  it('retries all failed, cancelled and waiting files at once, and clears completed captures in one transaction', () => {
    const { queue, ids, engine, events, states, lines } = setUp('retry');
    queue.db.prepare(`UPDATE files SET state = 'failed', error = 'x', attempts = 3 WHERE id % 4 = 0`).run();
    queue.db.prepare(`UPDATE files SET state = 'cancelled' WHERE id % 4 = 1`).run();
    queue.db.prepare(`UPDATE files SET next_attempt_at = 1, attempts = 2 WHERE id % 4 = 2`).run();
    expect(engine.retryAll()).toBe(7500);
    expect(states()).toEqual({ pending: 10_000 });
    expect(
      queue.db
        .prepare(
          'SELECT COUNT(*) AS n FROM files WHERE attempts > 0 OR next_attempt_at IS NOT NULL OR error IS NOT NULL',
        )
        .get(),
    ).toEqual({ n: 0 });
    expect(lines()).toEqual([{ kind: 'resumed', subject: 'queue', message: 'Queued again 7,500 files, by a person' }]);

    // Half the captures completed: cleared in one go, their files and parts with them.
    queue.db.prepare(`UPDATE files SET state = 'completed' WHERE capture_row % 2 = 0`).run();
    queue.db.prepare(`UPDATE captures SET state = 'completed' WHERE id % 2 = 0`).run();
    events.length = 0;
    expect(engine.clearCompleted()).toBe(2500);
    expect(queue.captures()).toHaveLength(2500);
    expect(states()).toEqual({ pending: 5000 });
    expect(queue.db.prepare('SELECT COUNT(*) AS n FROM parts').get()).toEqual({ n: 5000 });
    const batch = events.filter((e) => e.type === 'batch');
    expect(batch).toHaveLength(1);
    expect(batch[0]!.fileIds).toHaveLength(5000);
    expect(lines().at(-1)).toMatchObject({
      kind: 'removed',
      message: expect.stringMatching(/^Cleared 2,500 completed capture\(s\)/),
    });
    expect(ids).toHaveLength(10_000);
  });

  it("forgets many parts' ETags in one transaction, the stored bytes kept exact", () => {
    const { queue } = setUp('forget');
    queue.db.prepare(`UPDATE parts SET etag = '"e"' WHERE file_id <= 3`).run();
    expect(queue.file(1)!.storedParts).toBe(1);
    expect(queue.batch.forgetParts(1, [1, 2, 3])).toBe(1);
    expect(queue.file(1)).toMatchObject({ storedParts: 0, storedBytes: 0 });
    expect(queue.file(2)).toMatchObject({ storedParts: 1, storedBytes: 1024 });
  });
});
