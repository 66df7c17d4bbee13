import { describe, expect, it } from 'vitest';
import { MiB, useServiceKit } from '../../testing/kit.js';
import type { Outage } from '../progress/progress.js';

// A silent capture gateway (docs/engine.md, "A silent capture gateway"): it accepts the
// connection and answers nothing. The engine sees it on the monotonic clock within the stall
// timeout of its last sign of life, says "the gateway" until it answers again, and the upload
// then completes with no part sent twice.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const kit = useServiceKit('silent-gateway');

describe('a capture gateway that goes silent mid-drain', () => {
  it('is an outage at the gateway within the stall timeout of its silence, over when it answers; no part is sent twice', async () => {
    const STALL_MS = 2000;
    const file = kit.file('silent-gateway.mp4', 2 * 5 * MiB + 3); // three parts
    // Idle timeout of the calls well above the stall timeout: the outage is told by the watch, not by a failure.
    const u = kit.uploader('silent', { stallTimeoutMs: STALL_MS, apiIdleTimeoutMs: 20_000, concurrency: 1 });
    const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
    const fileId = u.queue.filesOf(queued[0]!)[0]!.id;
    const outages: { at: number; outage: Outage | null }[] = [];
    u.engine.on(
      (e) => void (e.type === 'progress' && outages.push({ at: performance.now(), outage: e.overall.outage })),
    );
    // Slow enough that the gateway falls silent while parts are on the wire (their URLs already given).
    expect((await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 4 * MiB })).status).toBe(200);
    const from = kit.svc.storage.received.length;
    const draining = u.engine.drain();
    while (kit.svc.storage.bytesReceived < 2 * MiB) await sleep(20);
    await kit.fault({ target: 'gateway', times: 0, action: { type: 'hang' } });
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });

    // complete-batch (or a status read) is held; the outage is told within the stall timeout (and the watch's tick) of it.
    while (!kit.svc.faults.held.some((h) => h.target === 'gateway')) await sleep(20);
    const heldAt = kit.svc.faults.held.find((h) => h.target === 'gateway')!.at;
    while (!outages.some((o) => o.outage?.where === 'gateway') && performance.now() - heldAt < 15_000) await sleep(50);
    const told = outages.find((o) => o.outage?.where === 'gateway');
    expect(told, 'an outage at the gateway').toBeDefined();
    // The stall timeout and the watch's 1 s tick, with 2 s for a loaded test machine's scheduler.
    expect(told!.at - heldAt).toBeLessThan(STALL_MS + 3000);
    expect(told!.outage!.cause).toMatch(/^No answer from the capture gateway for \d+ s/);
    // It stays while the gateway is silent, even though storage answered parts meanwhile.
    await sleep(2 * STALL_MS);
    expect(outages.at(-1)!.outage?.where).toBe('gateway');
    expect(u.queue.meta.outage()?.where, 'recorded for `status`').toBe('gateway');

    await kit.svc.admin('DELETE', '/faults'); // the gateway answers again: held calls go on
    const summary = await draining;
    expect(summary.completed.map((f) => f.id)).toEqual([fileId]);
    expect(outages.at(-1)!.outage).toBeNull();
    const puts: Record<number, number> = {};
    for (const r of kit.svc.storage.received.slice(from))
      if (r.operation === 'UploadPart') puts[r.partNumber!] = (puts[r.partNumber!] ?? 0) + 1;
    expect(puts, 'PUTs per part number').toEqual({ 1: 1, 2: 1, 3: 1 });
    expect((await kit.stored(u, fileId)).sha256).toBe(file.sha256);
  }, 60_000);
});

describe('a capture gateway that answers 503 to presign-missing', () => {
  it('is an outage at the gateway while it lasts, recorded for `status`, and over once it answers', async () => {
    const file = kit.file('loud-gateway.mp4', 5 * MiB + 3); // two parts
    const u = kit.uploader('loud', { concurrency: 1 });
    const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
    const fileId = u.queue.filesOf(queued[0]!)[0]!.id;
    // What the screen and `status` (the queue's record) said, at each progress event of the drain.
    const seen: { shown: Outage['where'] | null; recorded: Outage['where'] | null }[] = [];
    u.engine.on(
      (e) =>
        void (
          e.type === 'progress' &&
          seen.push({ shown: e.overall.outage?.where ?? null, recorded: u.queue.meta.outage()?.where ?? null })
        ),
    );
    await kit.fault({
      target: 'gateway',
      operation: 'presign-missing',
      times: 0,
      action: { type: 'status', status: 503 },
    });
    const first = await u.engine.drain();
    expect(first.completed).toEqual([]);
    expect(
      seen.some((s) => s.shown === 'gateway' && s.recorded === 'gateway'),
      'an outage at the gateway, shown and recorded for `status`',
    ).toBe(true);

    await kit.svc.admin('DELETE', '/faults');
    u.engine.retryAll();
    const summary = await u.engine.drain();
    expect(summary.completed.map((f) => f.id)).toEqual([fileId]);
    expect(u.queue.meta.outage()).toBeNull();
    expect((await kit.stored(u, fileId)).sha256).toBe(file.sha256);
  }, 60_000);
});
