import { afterEach, describe, expect, it } from 'vitest';
import { tempQueue } from '../testing/kit.js';
import { fillQueue } from '../testing/fill-queue.js';

// The order files start in (docs/decisions/order-fair-order.md): the person's order (To front /
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
