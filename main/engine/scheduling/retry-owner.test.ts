import { describe, expect, it } from 'vitest';
import { MiB, useServiceKit } from '../../testing/kit.js';

// Who retries what (README "Who retries what"): a gateway call is retried by the
// gateway client's one policy, a part PUT by the part sender, a file by the durable schedule.
// Tries never multiply across the layers.

const kit = useServiceKit('retry-owner');

const fast = (retries: number) => ({ retries, delayMs: () => 5 });

describe('one owner per retry', () => {
  it('a presign that keeps failing while a part is re-signed is sent 1 + apiRetry times, not that times the part retries', async () => {
    const file = kit.file('resign.mp4', MiB);
    // The first presign-missing answers; storage then refuses the PUT (presign again, §7), and
    // every later presign-missing answers 500.
    await kit.fault({
      target: 'gateway',
      operation: 'presign-missing',
      skip: 1,
      times: 0,
      action: { type: 'status', status: 500 },
    });
    await kit.fault({ target: 'storage', operation: 'UploadPart', times: 1, action: { type: 'status', status: 403 } });
    const u = kit.uploader('resign', { apiRetry: fast(2), partRetry: fast(3) });
    const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
    const [f] = u.queue.filesOf(queued[0]!);
    const from = kit.svc.storage.received.length;

    const summary = await u.engine.drain();

    expect(await kit.fired()).toEqual([3, 1]);
    expect(kit.svc.storage.received.slice(from).filter((r) => r.operation === 'UploadPart')).toHaveLength(1);
    // The durable schedule owns the file now: pending with a retry time, its cause kept.
    expect(summary.waiting.map((w) => w.id)).toEqual([f!.id]);
    const row = u.queue.file(f!.id)!;
    expect([row.state, row.transient, row.error]).toEqual(['pending', true, expect.stringMatching(/500/)]);
  });

  it('a part PUT answering 500 is sent 1 + partRetry times; the presign call is not repeated for it', async () => {
    const file = kit.file('put500.mp4', MiB);
    await kit.fault({ target: 'storage', operation: 'UploadPart', times: 0, action: { type: 'status', status: 500 } });
    await kit.fault({ target: 'gateway', operation: 'presign-missing', times: 0, action: { type: 'latency', ms: 0 } });
    const u = kit.uploader('put500', { apiRetry: fast(2), partRetry: fast(3), maxRounds: 1 });
    const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
    const [f] = u.queue.filesOf(queued[0]!);

    const summary = await u.engine.drain();

    const [puts, presigns] = await kit.fired();
    expect(puts).toBe(4);
    expect(presigns).toBe(1);
    expect(summary.waiting.map((w) => w.id)).toEqual([f!.id]);
  });
});
