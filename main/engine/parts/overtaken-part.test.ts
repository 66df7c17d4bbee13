import { describe, expect, it } from 'vitest';
import { MiB, useServiceKit } from '../../testing/kit.js';

// A part sent in full into a link that then went silent for it alone, and dropped there (the
// local service's `hang`: a request the client gave up on is never stored). The client gives it
// up after twice the stall timeout and asks storage for it over the long settle
// (docs/decisions/0034-in-doubt-long-settle.md), whose end is every byte in doubt at the slowest
// link accepted: here 64 KiB at 1 KiB/s, 64 s. But the link keeps delivering: a part sent after it
// was given up, and larger, is stored while it is still missing. On a link shared fairly, or through a proxy
// that forwards in order, the earlier part would have arrived first: it was lost, and it is sent
// again at once rather than after its share (LinkMonitor.overtook).
//
// Scaled down: a 1 s stall timeout (an answer is given up after 2 s), two request slots.

const kit = useServiceKit('overtaken-part');
const LAST = 64 * 1024;

describe('a part given up for lack of an answer, overtaken by a part sent after it', () => {
  it('is sent again as soon as the later part is stored, not after its share at the slowest link; nothing stored twice', async () => {
    // The first file, one small part, is held; the twelve files after it have one part each,
    // most of them sent after it was given up (storage takes 10 MiB/s: 6 s for them all).
    const files = [
      kit.file('overtaken-0.mp4', LAST),
      ...Array.from({ length: 12 }, (_, i) => kit.file(`overtaken-${String.fromCharCode(97 + i)}.mp4`, 5 * MiB)),
    ];
    const lines: { at: number; line: string }[] = [];
    const u = kit.uploader('overtaken', {
      stallTimeoutMs: 1000,
      minLinkRate: 1024,
      concurrency: 2,
      log: {
        info: (line) => lines.push({ at: performance.now(), line }),
        warn: (line) => lines.push({ at: performance.now(), line }),
      },
    });
    // The held file is queued first, alone, so its part is the first sent.
    const queued = [];
    for (const batch of [files.slice(0, 1), files.slice(1)])
      queued.push(
        ...(
          await u.add(
            batch.map((f) => f.path),
            { structure: kit.structure(), type: 'interior' },
          )
        ).queued,
      );
    const ids = queued.map((row) => u.queue.filesOf(row)[0]!.id);
    const before = { ...kit.svc.storage.stats };
    // The first file's part: sent in full at once (64 KiB fit the system's buffers). Aimed by its
    // key: with two slots, a later file's part may reach storage first.
    expect(
      (
        await kit.svc.admin('POST', '/faults', {
          target: 'storage',
          operation: 'UploadPart',
          keyContains: 'overtaken-0.mp4',
          times: 1,
          action: { type: 'hang' },
        })
      ).status,
    ).toBe(201);

    expect((await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 10 * MiB })).status).toBe(200);

    const started = performance.now();
    const summary = await u.engine.drain();
    const tookMs = performance.now() - started;

    expect(summary.completed.map((f) => f.id).sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const f = files.find((x) => x.path === u.queue.file(id)!.path)!;
      expect((await kit.stored(u, id)).sha256, f.path).toBe(f.sha256);
    }
    expect(kit.svc.storage.stats.partsReplaced - before.partsReplaced, 'parts stored twice').toBe(0);
    const givenUp = lines.find((l) => /Part 1 of overtaken-0\.mp4: .*asking whether storage has it/.test(l.line));
    expect(givenUp, lines.map((l) => l.line).join('\n')).toBeDefined();
    const sentAgain = lines.find((l) => /Part 1 of overtaken-0\.mp4: sent in full, given up/.test(l.line));
    expect(sentAgain, lines.map((l) => l.line).join('\n')).toBeDefined();
    // Its share at the slowest link would be 64 s; the part sent after it was stored within seconds.
    expect(sentAgain!.at - givenUp!.at, 'from giving the part up to sending it again').toBeLessThan(20_000);
    expect(tookMs).toBeLessThan(40_000);
  }, 180_000);
});
