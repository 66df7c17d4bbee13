import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeFakeCard } from '../../card/fake-card.js';
import type { ServiceKit } from '../../testing/kit.js';
import { MiB, sha256, startServiceKit } from '../../testing/kit.js';
import { clearReadFault, readFault } from '../../testing/fs-fault.js';

// A card on its way out (or a stale mount) answers a read with EIO for a
// moment while its mount still exists. That read must not turn the file into a red "Needs you ·
// cannot be read" row: it is tried again shortly (and finds the card gone, or reads it).
//
// The fault seam: node:fs wrapped so that the read of one file at one position fails with an
// errno code, as many times as asked (main/testing/fs-fault.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../../testing/fs-fault.js')).faultyFs(await importOriginal<typeof import('node:fs')>()),
);
const fault = readFault;

let kit: ServiceKit;
beforeAll(async () => {
  kit = await startServiceKit('card-read-error');
});
afterEach(async () => {
  clearReadFault();
  await kit.reset();
});
afterAll(async () => kit.stop());

/** UploadPart requests storage received for one object key, per part number. */
function putsOf(key: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const r of kit.svc.storage.received)
    if (r.operation === 'UploadPart' && r.key === key) counts.set(r.partNumber!, (counts.get(r.partNumber!) ?? 0) + 1);
  return counts;
}

describe('a read error from a card whose mount still exists (straight-from-card uploads)', () => {
  it('EIO once mid-part: the file is tried again shortly and completes byte-identical, never failed, nothing storage held sent again', async () => {
    const mount = join(kit.work, 'media');
    const card = writeFakeCard(join(mount, 'X4_CARD'), { recordings: 1, bytes: 11 * MiB });
    const target = card.recordings[0]!;
    const warned: string[] = [];
    const u = kit.uploader('eio-once', {
      concurrency: 1,
      cards: { mountRoots: [mount], intervalMs: 50, deviceRetryMs: [100, 100, 100] },
      log: { info: () => {}, warn: (m) => warned.push(m) },
    });
    const { queued } = await u.add([card.root], { structure: kit.structure(), type: 'interior' });
    const files = u.queue.filesOf(queued[0]!);
    const file = files.find((f) => f.path === target)!;
    // The second MiB of part 2 (parts of 5 MiB): part 1 is stored by then, part 2 half sent.
    Object.assign(fault, { path: target, position: 6 * MiB, code: 'EIO', times: 1 });
    const keyOf = () => kit.svc.store.state.uploads[u.queue.file(file.id)!.uploadId!]!.key;
    let putsAtFault = new Map<number, number>();
    fault.onFire = () => (putsAtFault = putsOf(keyOf()));
    const states: string[] = [];
    // Each retry time set, and the wall-clock time it was announced at (ms since epoch).
    const retries: { at: number; now: number }[] = [];
    u.engine.on((e) => {
      if (e.type !== 'file' || e.fileId !== file.id) return;
      states.push(e.state);
      if (e.file.nextAttemptAt !== null) retries.push({ at: e.file.nextAttemptAt, now: Date.now() });
    });

    const summary = await u.engine.drain({ wait: true, deadline: Date.now() + 60_000 });

    expect(fault.fired).toBe(1);
    // When the read failed, part 1 had been sent (and answered: parts go one at a time), part 3 not.
    expect([putsAtFault.get(1), putsAtFault.get(3)]).toEqual([1, undefined]);
    expect([summary.failed, summary.cardRemoved]).toEqual([[], null]);
    expect(summary.completed.map((f) => f.id).sort()).toEqual(files.map((f) => f.id).sort());
    expect(states).not.toContain('failed');
    for (const f of files)
      expect((await kit.stored(u, f.id)).sha256).toBe(sha256(readFileSync(u.queue.file(f.id)!.path)));
    const puts = putsOf(keyOf());
    // Part 1, held when the read failed, went once; part 2 (cut off: storage never had it) at most twice.
    expect([puts.get(1), puts.get(3)]).toEqual([1, 1]);
    expect(puts.get(2)).toBeLessThanOrEqual(2);
    const lines = u.queue.activity
      .list()
      .filter((a) => a.fileId === file.id)
      .map((a) => [a.kind, a.message]);
    expect(lines.filter(([k]) => k === 'failed')).toEqual([]);
    // The short retry lies ahead (deviceRetryMs 100 ms), and the log says so, as the activity line does.
    expect(retries).toHaveLength(1);
    expect(retries[0]!.at).toBeGreaterThan(retries[0]!.now);
    expect(warned).toEqual([
      expect.stringMatching(
        /^Reading VID_\S+ failed \(EIO\) while its card or drive still looked mounted\. Trying again at /,
      ),
    ]);
    expect(lines).toContainEqual([
      'retry-scheduled',
      expect.stringMatching(
        /^Reading VID_\S+ failed \(EIO\) while its card or drive still looked mounted\. Trying again at /,
      ) as string,
    ]);
  }, 90_000);

  it('a card that keeps answering EIO while mounted fails as unreadable after the short tries', async () => {
    const mount = join(kit.work, 'media-bad');
    const card = writeFakeCard(join(mount, 'BAD_CARD'), { recordings: 1, bytes: 6 * MiB });
    const target = card.recordings[0]!;
    const u = kit.uploader('eio-always', {
      concurrency: 1,
      cards: { mountRoots: [mount], intervalMs: 50, deviceRetryMs: [50, 50] },
    });
    const { queued } = await u.add([card.root], { structure: kit.structure(), type: 'interior' });
    const file = u.queue.filesOf(queued[0]!).find((f) => f.path === target)!;
    Object.assign(fault, { path: target, position: 5 * MiB, code: 'ENXIO', times: Infinity });

    const summary = await u.engine.drain({ wait: true, deadline: Date.now() + 60_000 });

    expect(fault.fired).toBe(3);
    expect(summary.failed.map((f) => f.id)).toEqual([file.id]);
    expect(u.queue.file(file.id)!.error).toBe(
      `${target} cannot be read (ENXIO): the card or drive failed to read; reconnect it, then retry the file.`,
    );
    const kinds = u.queue.activity
      .list()
      .filter((a) => a.fileId === file.id)
      .map((a) => a.kind);
    expect(kinds.filter((k) => k === 'retry-scheduled')).toHaveLength(2);
  }, 90_000);
});
