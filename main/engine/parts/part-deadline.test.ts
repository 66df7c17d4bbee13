import { describe, expect, it } from 'vitest';
import { CAUSE_WORDS, plainCause } from '../../../shared/causes.js';
import { MiB, useServiceKit } from '../../testing/kit.js';

// A part's whole time on the wire is bounded too, not only its silences: a link that takes bytes,
// only slower than the slowest the engine accepts (here scaled up to 4 MiB/s, with a 5 s stall
// timeout), never falls silent, and its measured drain would let the part wait for minutes.
// At twice the stall timeout plus twice its bytes at the slowest rate (part-put.ts
// partDeadlineMs) the part is given up with "storage answers too slowly", and the file waits on
// the durable schedule.

const kit = useServiceKit('part-deadline');

describe('a part slower than the slowest link accepted', () => {
  it('is given up at its deadline, said, and the file waits on the schedule', async () => {
    const file = kit.file('too-slow.mp4', 5 * MiB);
    const u = kit.uploader('too-slow', {
      stallTimeoutMs: 5000,
      minLinkRate: 4 * MiB,
      concurrency: 1,
      partRetry: { retries: 0, delayMs: () => 10 },
    });
    const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
    const fileId = u.queue.filesOf(queued[0]!)[0]!.id;
    // 5 MiB at 256 KiB/s is 20 s on the wire; the deadline is 2 × 5 s + 2 × 1.25 s.
    expect((await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 256 * 1024 })).status).toBe(200);
    const started = performance.now();
    const summary = await Promise.race([
      u.engine.drain(),
      new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), 30_000)),
    ]);
    const took = performance.now() - started;
    expect(summary, 'the drain after 30 s').not.toBe('still waiting');
    expect(took).toBeLessThan(18_000);
    const row = u.queue.file(fileId)!;
    expect([row.state, row.transient]).toEqual(['pending', true]);
    expect(plainCause(row.error), row.error ?? '').toBe(CAUSE_WORDS['storage-slow']);
  }, 60_000);
});
