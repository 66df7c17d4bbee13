import { afterEach, describe, expect, it } from 'vitest';
import { tempQueue } from '../testing/kit.js';
import { fillQueue } from '../testing/fill-queue.js';
import { enqueueOne, oneFileRequest } from '../testing/queue-rows.js';
import { QueueSchedule } from './schedule.js';
import { statementCache } from './statements.js';

// The order files start in (docs/decisions/0005-fair-order.md): the person's order (To front /
// Move back), then within it a retry that is due before any file not yet tried, then the order
// of registration.

let open: ReturnType<typeof tempQueue> | undefined;
afterEach(() => {
  open?.close();
  open = undefined;
});

/** A queue of `pairs` registered dual-lens captures (files 1..2·pairs, capture n holds files 2n-1 and 2n). */
function queueOf(pairs: number) {
  open = tempQueue('schedule');
  const ids = fillQueue(open.queue, pairs);
  const q = open.queue;
  /** Gives a file a retry time (ms since epoch), as a failure that may pass leaves it. */
  const retryAt = (id: number, at: number) =>
    q.moveFile(id, ['pending'], 'pending', { error: 'storage unavailable', retryAt: at, transient: true });
  return { q, ids, retryAt };
}

describe('dueFiles', () => {
  it('takes a retry that is due before the files not yet tried, registered after it or not', () => {
    const { q, ids, retryAt } = queueOf(3);
    const now = Date.now();
    retryAt(ids[4]!, now - 60_000);
    retryAt(ids[1]!, now - 1_000);
    // Not due yet: not taken at all.
    retryAt(ids[2]!, now + 60_000);

    // Retries due in the order of registration (not by their retry time), then the untried ones.
    expect(q.schedule.dueFiles(now, 10).map((f) => f.id)).toEqual([ids[1], ids[4], ids[0], ids[3], ids[5]]);
    expect(q.schedule.dueFiles(now, 2).map((f) => f.id)).toEqual([ids[1], ids[4]]);
    // Running files and files waiting for their card are skipped, wherever they stand.
    expect(q.schedule.dueFiles(now, 10, [ids[1]!], [ids[0]!]).map((f) => f.id)).toEqual([ids[4], ids[3], ids[5]]);
  });

  it("keeps the person's order first: a capture moved to the front goes before a retry due further back, and moved back takes its place by age", () => {
    const { q, ids, retryAt } = queueOf(3);
    const now = Date.now();
    retryAt(ids[0]!, now - 1_000);
    retryAt(ids[5]!, now - 1_000);
    const third = q.filesOf(q.file(ids[4]!)!.captureRow)[0]!.captureRow;
    const second = q.file(ids[2]!)!.captureRow;
    q.schedule.setFront(second, true);
    q.schedule.setFront(third, true);

    // The last one moved first; within each capture, its retry due first; then the queue's own order.
    expect(q.schedule.dueFiles(now, 10).map((f) => f.id)).toEqual([ids[5], ids[4], ids[2], ids[3], ids[0], ids[1]]);
    q.schedule.setFront(third, false);
    expect(q.schedule.dueFiles(now, 10).map((f) => f.id)).toEqual([ids[2], ids[3], ids[0], ids[5], ids[1], ids[4]]);
    expect(q.schedule.dueFiles(now, 3).map((f) => f.id)).toEqual([ids[2], ids[3], ids[0]]);
  });

  it('never hands out a file awaiting its verified copy, nor one that is not pending', () => {
    const { q, ids, retryAt } = queueOf(2);
    retryAt(ids[3]!, Date.now() - 1_000);
    q.db.prepare('UPDATE files SET awaiting_copy = 1 WHERE id = ?').run(ids[3]);
    q.moveFile(ids[0]!, ['pending'], 'uploading');
    expect(q.schedule.dueFiles(Date.now(), 10).map((f) => f.id)).toEqual([ids[1], ids[2]]);
  });
});

describe('claimDueCapture', () => {
  /** `n` captures queued (not yet registered), in one transaction; returns their row ids in queue order. */
  function queued(n: number): { q: ReturnType<typeof tempQueue>['queue']; rows: number[] } {
    open = tempQueue('schedule-claim');
    const q = open.queue;
    const rows = q.transaction(() =>
      Array.from({ length: n }, (_, i) => {
        const recording = { path: `/card/VID_${i}.insv`, size: 1024, mtimeMs: 0 };
        return enqueueOne(q, `VID_${i}`, oneFileRequest(recording), recording);
      }),
    )();
    return { q, rows };
  }

  it('takes the captures moved to the front (last moved first), then the oldest due, skipping retries not yet due', () => {
    const { q, rows } = queued(6);
    const now = Date.now();
    q.schedule.setFront(rows[3]!, true);
    q.schedule.setFront(rows[4]!, true);
    q.schedule.moveCapture(rows[0]!, ['queued'], 'queued', 'gateway unavailable', now + 60_000);
    q.schedule.moveCapture(rows[1]!, ['queued'], 'queued', 'gateway unavailable', now - 1_000);
    const claimed: number[] = [];
    for (let c = q.schedule.claimDueCapture(now); c; c = q.schedule.claimDueCapture(now)) {
      expect(c.state).toBe('registering');
      claimed.push(c.id);
    }
    expect(claimed).toEqual([rows[4], rows[3], rows[1], rows[2], rows[5]]);
    // The one whose retry is not due stays queued until its time.
    expect(q.capture(rows[0]!)!.state).toBe('queued');
    expect(q.schedule.claimDueCapture(now + 60_000)!.id).toBe(rows[0]);
  });

  it('reads the next capture from an index in its order: no claim sorts or scans the queued captures', () => {
    // An add of 5,000 captures claims 5,000 times: a claim that sorts every queued capture makes
    // the add quadratic. SQLite's own plan of each statement the claim runs says what it reads.
    const { q, rows } = queued(50);
    q.schedule.setFront(rows[10]!, true);
    const texts: string[] = [];
    const cache = statementCache(q.db);
    const schedule = new QueueSchedule(q.db, (text) => {
      texts.push(text);
      return cache(text);
    });
    expect(schedule.claimDueCapture(Date.now())!.id).toBe(rows[10]);
    expect(schedule.claimDueCapture(Date.now())!.id).toBe(rows[0]);
    expect(texts.length).toBeGreaterThan(0);
    for (const text of new Set(texts)) {
      // Any values do: the plan depends on the text, not on what is bound.
      const named = Object.fromEntries([...text.matchAll(/@(\w+)/g)].map((m) => [m[1]!, 0]));
      const positional = Array<number>((text.match(/\?/g) ?? []).length).fill(0);
      const explain = q.db.prepare(`EXPLAIN QUERY PLAN ${text}`);
      const rows = (Object.keys(named).length ? explain.all(...positional, named) : explain.all(...positional)) as {
        detail: string;
      }[];
      const plan = rows.map((r) => r.detail);
      const onCaptures = plan.filter((d) => /\bcaptures\b/.test(d));
      expect(onCaptures.length).toBeGreaterThan(0);
      // SEARCH: through an index or the row id, never a SCAN of the table.
      for (const d of onCaptures)
        expect(d).toMatch(/^SEARCH captures USING (INDEX|INTEGER PRIMARY KEY|COVERING INDEX)/);
      // A sort of every candidate ("FOR ORDER BY"); ordering the few captures in front by id
      // within one priority ("FOR LAST TERM OF ORDER BY") reads only those.
      expect(plan.filter((d) => d === 'USE TEMP B-TREE FOR ORDER BY')).toEqual([]);
    }
  });
});
