import { describe, expect, it } from 'vitest';
import { MiB, useServiceKit } from '../testing/kit.js';
import type { Uploader } from '../service/uploader.js';

// "The site manager needs floor 3 first": a capture moved to the front of the queue
// is really uploaded first, as storage sees it (the order of the part PUTs it received), and moved
// back it takes its place by age again.

const kit = useServiceKit('front');

/** The capture row of each UploadPart storage received since `from`, in arrival order. */
function putsByCapture(u: Uploader, from: number): number[] {
  const byKey = new Map<string, number>();
  for (const f of u.queue.allFiles()) {
    const upload = f.uploadId ? kit.svc.store.state.uploads[f.uploadId] : undefined;
    if (upload) byKey.set(upload.key, f.captureRow);
  }
  return kit.svc.storage.received
    .slice(from)
    .filter((r) => r.operation === 'UploadPart')
    .map((r) => byKey.get(r.key!) ?? -1);
}

/** Queues three captures of one 11 MiB file each (3 parts) and registers them, no file started yet (a queue-wide hold). */
async function threeRegistered(u: Uploader): Promise<number[]> {
  const rows: number[] = [];
  for (const name of ['floor-1.mp4', 'floor-2.mp4', 'floor-3.mp4']) {
    const { queued } = await u.add([kit.file(name, 11 * MiB).path], { structure: kit.structure(), type: 'interior' });
    rows.push(queued[0]!);
  }
  u.engine.holds.holdUntil(null);
  await u.engine.drain();
  expect(u.queue.captures().map((c) => c.state)).toEqual(['registered', 'registered', 'registered']);
  u.engine.holds.release();
  return rows;
}

describe('a capture moved to the front of the queue', () => {
  it('is uploaded before the others: its parts reach storage first, in one run, and it is completed first', async () => {
    const u = kit.uploader('front', { concurrency: 1 });
    const [first, second, third] = await threeRegistered(u);
    await u.engine.moveCapture(third!, true);
    expect(u.queue.captures().map((c) => c.id)).toEqual([third, first, second]);
    expect(
      u.queue.activity
        .list()
        .filter((l) => l.kind === 'moved')
        .map((l) => [l.captureRow, l.message]),
    ).toEqual([[third, 'Moved to the front of the queue by a person']]);
    const from = kit.svc.storage.received.length;
    const completed: number[] = [];
    u.engine.on((e) => void (e.type === 'file' && e.state === 'completed' && completed.push(e.captureRow)));

    const summary = await u.engine.drain();

    expect(summary.completed).toHaveLength(3);
    const order = putsByCapture(u, from);
    expect(order).toHaveLength(9);
    // Floor 3's three parts go one after the other; a file already given the one free slot while
    // floor 3's file was being signed may have sent one part before them, never more.
    const start = order.indexOf(third!);
    expect(start).toBeLessThanOrEqual(1);
    expect(order.slice(start, start + 3)).toEqual([third, third, third]);
    expect(completed[0]).toBe(third);
    expect(order.slice(start + 3)).not.toContain(third);
  });

  it('moved while others upload, it takes their turn at once: their files step back (stored parts kept) and it completes first', async () => {
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 4 * MiB });
    const u = kit.uploader('moved-late', { concurrency: 1 });
    const [first, , third] = await threeRegistered(u);
    const completed: number[] = [];
    let moved: Promise<void> | undefined;
    u.engine.on((e) => {
      if (e.type === 'file' && e.state === 'completed') completed.push(e.captureRow);
      // Once floor 1 has a part in storage, the site manager asks for floor 3.
      if (e.type === 'progress' && !moved && e.files.some((f) => f.captureRow === first && f.partsDone >= 1))
        moved = u.engine.moveCapture(third!, true);
    });

    const summary = await u.engine.drain();
    await moved;

    expect(moved).toBeDefined();
    expect(summary.completed).toHaveLength(3);
    expect(completed[0]).toBe(third);
    // Floor 1 stepped back and came again later, from the parts storage already had: none sent twice.
    expect(kit.svc.storage.stats.partsReplaced).toBe(0);
    expect((await kit.stored(u, u.queue.filesOf(first!)[0]!.id)).bytes.length).toBe(11 * MiB);
  });

  it('moved back, it takes its place by age again: the oldest capture goes first', async () => {
    const u = kit.uploader('back', { concurrency: 1 });
    const [first, second, third] = await threeRegistered(u);
    await u.engine.moveCapture(third!, true);
    await u.engine.moveCapture(second!, true);
    // The last one moved goes first.
    expect(u.queue.captures().map((c) => c.id)).toEqual([second, third, first]);
    await u.engine.moveCapture(second!, false);
    await u.engine.moveCapture(third!, false);
    expect(u.queue.captures().map((c) => [c.id, c.priority])).toEqual([
      [first, 0],
      [second, 0],
      [third, 0],
    ]);
    const from = kit.svc.storage.received.length;

    await u.engine.drain();

    // By age again: the two oldest share the slot (the limiter's fairness), floor 3 starts last.
    const order = putsByCapture(u, from);
    expect(order).toHaveLength(9);
    expect(order.slice(0, 2).sort()).toEqual([first, second]);
    expect(order.indexOf(third!)).toBeGreaterThan(3);
    await expect(u.engine.moveCapture(9999, true)).rejects.toThrow('Capture 9999 is no longer in the queue.');
  });
});
