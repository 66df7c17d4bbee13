import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MiB, useServiceKit } from '../../testing/kit.js';

// A blip hits the first captures of the night; new captures keep arriving. Once storage is back
// the captures the blip hit finish first: a retry that is due goes before every file not yet
// tried (docs/decisions/0005-fair-order.md), as the completion order in the activity log shows.

const kit = useServiceKit('fair-order');

const fast = (retries: number) => ({ retries, delayMs: () => 5 });

describe('the captures a blip hit', () => {
  it('finish first once storage is back, while new captures keep arriving', async () => {
    // One request slot (two files at work), a file of one part that takes storage about 0.4 s.
    const u = kit.uploader('blip', {
      concurrency: 1,
      partRetry: fast(1),
      maxRounds: 1,
      retrySchedule: { delayMs: () => 1500 },
    });
    const add = async (name: string) => {
      const file = kit.file(name, 3 * MiB);
      const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
      return { row: queued[0]!, file };
    };
    const first = [await add('first-1.mp4'), await add('first-2.mp4')];

    // The blip: every part PUT is refused, the first captures wait for their retry time.
    await kit.fault({ target: 'storage', operation: 'UploadPart', times: 0, action: { type: 'status', status: 503 } });
    const blip = await u.engine.drain();
    const hit = first.map((c) => u.queue.filesOf(c.row)[0]!);
    expect(blip.waiting.map((w) => w.id).sort()).toEqual(hit.map((f) => f.id).sort());
    // Each waits for its retry (a loaded machine may have tried one twice within the blip).
    for (const f of hit) expect([f.state, f.attempts >= 1, f.nextAttemptAt !== null]).toEqual(['pending', true, true]);

    // Storage is back; a card of new captures is added, and their retry times pass.
    await kit.svc.admin('DELETE', '/faults');
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 8 * MiB });
    const later = [];
    for (let i = 1; i <= 4; i++) later.push(await add(`later-${i}.mp4`));
    const due = Math.max(...hit.map((f) => u.queue.file(f.id)!.nextAttemptAt!));
    await sleep(Math.max(0, due - Date.now()) + 100);

    // More keep arriving while the queue drains.
    const arriving = (async () => {
      for (let i = 5; i <= 8; i++) {
        await sleep(300);
        later.push(await add(`later-${i}.mp4`));
      }
    })();
    const summary = await u.engine.drain({ wait: true });
    await arriving;
    if (summary.completed.length < 10) await u.engine.drain({ wait: true });

    const completed = u.queue.activity
      .list()
      .filter((l) => l.kind === 'completed')
      .map((l) => l.captureRow);
    expect(completed).toHaveLength(10);
    expect(completed.slice(0, 2).sort()).toEqual(first.map((c) => c.row).sort());
    // What storage holds is what was on disk.
    for (const c of [...first, ...later])
      expect((await kit.stored(u, u.queue.filesOf(c.row)[0]!.id)).sha256).toBe(c.file.sha256);
  });
});
