import { describe, expect, it } from 'vitest';
import { MiB, useServiceKit } from '../../testing/kit.js';

// The wait for a part's answer after its last byte (docs/engine.md, "A silent link", rule 3): a
// small part the system's buffers took whole, beside a larger part whose write is stuck, is given
// up at twice the stall timeout, whatever else is in flight.

const kit = useServiceKit('answer-allowance');

const STALL_MS = 2000;
// The slowest link assumed for a part taken whole by the system's buffers (EngineOptions.minLinkRate).
const SLOWEST = 128 * 1024;
const PART = MiB; // a one-part file, smaller than the system's buffers: every byte is taken at once

describe("the wait for a part's answer after its last byte", () => {
  it('beside a larger part whose write is stuck (a dead path, not a slow one), a small part is given up at twice the stall timeout', async () => {
    const said: { at: number; text: string }[] = [];
    const log = (text: string) => said.push({ at: performance.now(), text });
    const u = kit.uploader('dead-path', {
      stallTimeoutMs: STALL_MS,
      minLinkRate: SLOWEST,
      concurrency: 2,
      log: { info: log, warn: log },
    });
    // Storage holds both requests unread once: the 5 MiB part's body does not fit in the buffers,
    // so its write waits; the 1 MiB part's every byte is taken at once.
    await kit.fault({ target: 'storage', operation: 'UploadPart', times: 2, action: { type: 'hang' } });
    const big = kit.file('dead-big.mp4', 5 * MiB);
    const small = kit.file('dead-small.mp4', PART);
    const { queued } = await u.add([big.path, small.path], { structure: kit.structure(), type: 'interior' });
    const ids = queued.map((row) => u.queue.filesOf(row)[0]!.id);
    const summary = await u.engine.drain();
    expect(summary.completed.map((f) => f.id).sort()).toEqual(ids.sort());
    const held = kit.svc.faults.held.find((h) => h.key!.endsWith('dead-small.mp4'))!;
    const given = said.find((l) =>
      /Part 1 of dead-small\.mp4: No progress for \d+ s after the whole part was sent/.test(l.text),
    );
    expect(given, said.map((l) => l.text).join('\n')).toBeDefined();
    expect(given!.at - held.at, 'given up after').toBeLessThan(2 * STALL_MS + 3000);
    expect((await kit.stored(u, ids[1]!)).sha256).toBe(small.sha256);
    expect((await kit.stored(u, ids[0]!)).sha256).toBe(big.sha256);
  }, 60_000);
});
