import { randomBytes } from 'node:crypto';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServiceKit } from '../testing/kit.js';
import { MiB, useServiceKit } from '../testing/kit.js';
import type { Uploader } from '../service/uploader.js';
import { MAX_OBJECT_SIZE, partLimitBeforeRegistration } from '../service/uploader.js';

// A capture is sent whole or not at all (docs/decisions/0010-whole-capture.md): the
// 10,000-part limit is checked with the part size of this gateway's add-capture answer, never
// one an earlier registration gave, and a lens whose sibling cannot fit is never uploaded alone.
// The big lens is a sparse file (truncate): 48.8 GiB on no disk.

const BIG = 10_000 * 5 * MiB + 1; // 10,001 parts of 5 MiB; 5,001 of 10 MiB

/** A dual-lens pair in `dir`: lens 00 of `small` random bytes, lens 10 of `big` sparse bytes. */
function pair(dir: string, stamp: string, small: number, big: number): { small: string; big: string } {
  const a = join(dir, `VID_20261122_${stamp}_00_001.insv`);
  const b = join(dir, `VID_20261122_${stamp}_10_001.insv`);
  writeFileSync(a, randomBytes(small));
  writeFileSync(b, '');
  truncateSync(b, big);
  return { small: a, big: b };
}

const partPuts = (kit: ServiceKit, from: number) =>
  kit.svc.storage.received.slice(from).filter((r) => r.operation === 'UploadPart');

describe('a gateway giving 5 MiB parts: one lens would need 10,001', () => {
  const kit = useServiceKit('whole-capture-5');

  it('says so for the capture before registering, then holds the whole capture with one sentence: no lens is sent, not even when retried', async () => {
    const files = pair(kit.work, '060606', 1 * MiB, BIG);
    const u: Uploader = kit.uploader('five', { readFacts: async () => ({}) });
    // An earlier registration's part size, as a queue may hold it: it must not decide anything.
    u.queue.meta.set('partSize', 10 * MiB);
    const from = kit.svc.storage.received.length;
    const { queued, refused, warnings } = await u.add([files.small, files.big], {
      structure: kit.structure(),
      type: 'interior',
    });
    expect(refused).toEqual([]);
    expect(queued).toHaveLength(1);
    expect(warnings.filter((w) => /parts/.test(w.reason))).toEqual([
      {
        path: files.big,
        reason: expect.stringMatching(
          /VID_20261122_060606_10_001\.insv would need 10,001 parts of 5 MiB .*the whole capture waits for you/,
        ),
      },
    ]);

    const summary = await u.engine.drain();
    const rows = u.queue.filesOf(queued[0]!);
    expect(rows).toHaveLength(2);
    expect(u.queue.capture(queued[0]!)!.state).toBe('registered');
    expect(rows.map((f) => f.state)).toEqual(['failed', 'failed']);
    // One sentence for the capture, the same on each lens.
    expect(new Set(rows.map((f) => f.error)).size).toBe(1);
    expect(rows[0]!.error).toMatch(
      /^VID_20261122_060606_10_001\.insv would need 10,001 parts of 5 MiB and storage allows 10,000 \(48\.8 GiB\), so none of the capture's 2 files was sent: split the recording/,
    );
    expect(summary.completed).toEqual([]);
    expect(partPuts(kit, from)).toEqual([]);

    // A person retries everything, or the small lens alone: still nothing is sent.
    u.engine.retryAll();
    await u.engine.drain();
    u.engine.resume(rows[0]!.id);
    await u.engine.drain();
    expect(u.queue.filesOf(queued[0]!).map((f) => f.state)).toEqual(['failed', 'failed']);
    expect(partPuts(kit, from)).toEqual([]);
  });
});

describe('a gateway giving 10 MiB parts: the same lens fits in 5,001', () => {
  const kit = useServiceKit('whole-capture-10', { partSize: 10 * MiB });

  it("is registered with this answer's part size, though an earlier registration gave 5 MiB", async () => {
    const files = pair(kit.work, '070707', 1 * MiB, BIG);
    const u = kit.uploader('ten', { readFacts: async () => ({}) });
    u.queue.meta.set('partSize', 5 * MiB);
    const { queued, refused } = await u.add([files.small, files.big], { structure: kit.structure(), type: 'interior' });
    expect(refused).toEqual([]);
    expect(queued).toHaveLength(1);
    // Registered and ready to send (not drained: 48.8 GiB of zeros is not sent here).
    const rows = u.queue.filesOf(queued[0]!);
    expect(u.queue.capture(queued[0]!)!.state).toBe('registered');
    expect(rows.map((f) => [f.state, f.partSize, f.totalParts])).toEqual([
      ['pending', 10 * MiB, 1],
      ['pending', 10 * MiB, 5_001],
    ]);
  });
});

describe('before registration, with no part size known yet', () => {
  it('refuses the whole capture only when a file is larger than any part size can store (S3: 5 TiB)', () => {
    const files = [
      { path: '/card/VID_20261122_080808_00_001.insv', fileName: 'VID_20261122_080808_00_001.insv', size: 1 * MiB },
      {
        path: '/card/VID_20261122_080808_10_001.insv',
        fileName: 'VID_20261122_080808_10_001.insv',
        size: MAX_OBJECT_SIZE + 1,
      },
    ];
    expect(partLimitBeforeRegistration(files)).toEqual({
      refuse: true,
      path: files[1]!.path,
      sentence:
        "Not queued: VID_20261122_080808_10_001.insv is larger than storage's largest object (5 TiB), whatever the part size. None of the capture's 2 files is queued.",
    });
    expect(partLimitBeforeRegistration([files[0]!, { ...files[1]!, size: BIG }])?.refuse).toBe(false);
    expect(partLimitBeforeRegistration([files[0]!, { ...files[1]!, size: 10_000 * 5 * MiB }])).toBeUndefined();
  });
});
