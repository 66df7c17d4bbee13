import { describe, expect, it } from 'vitest';
import { CAUSE_WORDS, plainCause } from '../../../shared/causes.js';
import { MiB, useServiceKit } from '../../testing/kit.js';
import type { Outage } from '../progress/progress.js';

// Storage behind a proxy that buffers whole request bodies (the local service's `bufferingProxy`):
// it takes each part's bytes at once and passes them on slowly, after a first fast part. The
// client sees every byte leave and no answer come, as on a silent link; the proxy still delivers.
// A part given up for lack of an answer is asked for at storage (the status read) over a longer,
// backed-off settle, sized by what is in doubt at the slowest link accepted, before it is sent
// again: sending it again on a slow link costs more than waiting. And while the gateway answers
// those asks, the screen does not say "network down" (docs/engine.md, "A silent link").
//
// Scaled down: a 1 s stall timeout (a part's answer is given up after 2 s), the proxy at 2 MiB/s
// shared by four parts of 5 MiB (each needs about 10 s), the slowest link accepted 1 MiB/s.

const kit = useServiceKit('buffering-proxy');

describe('a proxy that buffers part bodies and passes them on slowly', () => {
  it('stores no part twice, every object byte for byte, and the screen never says "network down" once the asks are answered', async () => {
    const files = [kit.file('proxy-a.mp4', 15 * MiB), kit.file('proxy-b.mp4', 15 * MiB - 7)]; // three parts each
    const lines: { at: number; line: string }[] = [];
    const u = kit.uploader('proxy', {
      stallTimeoutMs: 1000,
      minLinkRate: MiB,
      concurrency: 4,
      log: {
        info: (line) => lines.push({ at: performance.now(), line }),
        warn: (line) => lines.push({ at: performance.now(), line }),
      },
    });
    const { queued } = await u.add(
      files.map((f) => f.path),
      { structure: kit.structure(), type: 'interior' },
    );
    const ids = queued.map((row) => u.queue.filesOf(row)[0]!.id);
    const outages: { at: number; outage: Outage | null }[] = [];
    u.engine.on(
      (e) => void (e.type === 'progress' && outages.push({ at: performance.now(), outage: e.overall.outage })),
    );
    const before = { ...kit.svc.storage.stats };
    expect(
      (await kit.svc.admin('PUT', '/settings', { bufferingProxy: { bytesPerSecond: 2 * MiB, afterParts: 2 } })).status,
    ).toBe(200);

    const summary = await u.engine.drain();
    // Every body the proxy took is stored before counting (a client that gave up left some in it).
    const held = () =>
      kit.svc.storage.stats.partBodiesReceived -
      before.partBodiesReceived -
      (kit.svc.storage.stats.partsStored - before.partsStored);
    for (const until = performance.now() + 120_000; held() > 0 && performance.now() < until; )
      await new Promise((r) => setTimeout(r, 200));

    expect(kit.svc.storage.stats.partsReplaced - before.partsReplaced, 'parts stored twice').toBe(0);
    expect(kit.svc.storage.stats.partBodiesReceived - before.partBodiesReceived, 'part bodies sent').toBe(6);
    expect(summary.completed.map((f) => f.id).sort()).toEqual([...ids].sort());
    for (const [i, f] of files.entries()) expect((await kit.stored(u, ids[i]!)).sha256).toBe(f.sha256);

    // Parts were given up for lack of an answer (the proxy was slow), and then found in storage.
    const givenUp = lines.find((l) => /asking whether storage has it/.test(l.line));
    expect(givenUp, 'a part given up for lack of an answer').toBeDefined();
    expect(lines.some((l) => /storage has it; not sent again/.test(l.line))).toBe(true);
    // Once the first ask is answered, nothing says the network is down: the gateway answers.
    const said = outages.filter((o) => o.at > givenUp!.at + 500 && o.outage).map((o) => plainCause(o.outage!.cause));
    expect(
      said.filter((w) => w === CAUSE_WORDS.network),
      'outages said "network down"',
    ).toEqual([]);
  }, 180_000);
});
