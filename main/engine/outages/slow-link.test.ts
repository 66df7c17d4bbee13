import { describe, expect, it } from 'vitest';
import type { Uploader, UploaderOptions } from '../../service/uploader.js';
import { MiB, sha256, useServiceKit } from '../../testing/kit.js';

// Slow links: storage throttled to the rates real sites see. These tests run
// for minutes on purpose; each keeps to the fewest parts that show the behaviour.
const KiB = 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Uploaders with the engine's real stall timeout (30 s), one part at a time, and short per-request retries. */
const kit = useServiceKit('slow-link-test', {}, { timings: 'engine', uploader: { concurrency: 1 } });
const uploader = (name: string, extra: Partial<UploaderOptions> = {}): Uploader => kit.uploader(name, extra);
const makeFile = (name: string, size: number) => kit.file(name, size);

describe('a slow link finishes', () => {
  it('a 5 MiB part completes with storage at 32 KiB/s (no false "No progress for 30 s")', async () => {
    const { path, bytes } = makeFile('slow-32k.mp4', 5 * MiB);
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 32 * KiB });
    const u = uploader('slow-32k');
    const { queued } = await u.add([path], { structure: kit.svc.info.structures[0]!, type: 'interior' });
    const [file] = u.queue.filesOf(queued[0]!);
    const sends = () => kit.svc.storage.received.filter((r) => r.operation === 'UploadPart').length;
    const before = sends();
    const summary = await u.engine.drain();
    expect(summary.waiting.map((f) => f.error)).toEqual([]);
    expect(summary.completed.map((f) => f.id)).toEqual([file!.id]);
    expect(sends() - before).toBe(1); // sent once, never abandoned as stalled
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    expect((await kit.stored(u, file!.id)).sha256).toBe(sha256(bytes));
  }, 300_000);
});

describe('a client limit of 8 KiB/s on a 5 MiB part', () => {
  // The whole part takes about 11 minutes at 8 KiB/s (`npm run bench -- --only slow-link` sends
  // it); here it runs 35 s, past the engine's real 30 s stall timeout, then the limit is lifted
  // and the same request carries the rest.
  it('runs 35 s with the real stall timeout: no stall, storage receives bytes every 5 s, the part is sent once', async () => {
    const { path, bytes } = makeFile('limit-8k.mp4', 5 * MiB);
    const lines: string[] = [];
    const u = uploader('limit-8k', {
      bandwidthBytesPerSecond: 8 * KiB,
      log: { info: (m) => lines.push(m), warn: (m) => lines.push(m) },
    });
    const { queued } = await u.add([path], { structure: kit.svc.info.structures[0]!, type: 'interior' });
    const file = u.queue.filesOf(queued[0]!)[0]!;
    const sends = () => kit.svc.storage.received.filter((r) => r.operation === 'UploadPart').length;
    const before = sends();
    let inFlight = 0;
    const off = u.engine.on((e) => {
      if (e.type === 'progress') inFlight = e.files.find((f) => f.fileId === file.id)?.bytesInFlight ?? inFlight;
    });
    const drain = u.engine.drain();
    while (sends() === before) await sleep(50);
    const received: number[] = [kit.svc.storage.bytesReceived];
    const shown: number[] = [inFlight];
    for (let window = 0; window < 7; window++) {
      await sleep(5000);
      received.push(kit.svc.storage.bytesReceived);
      shown.push(inFlight);
    }
    off();
    // Every 5 s window moved bytes into storage, and the progress shown for the part moved with them.
    for (let w = 1; w < received.length; w++) {
      expect(received[w]! - received[w - 1]!, `window ${w}: bytes storage received`).toBeGreaterThan(0);
      expect(shown[w]!, `window ${w}: the part's bytes shown in flight`).toBeGreaterThan(shown[w - 1]!);
    }
    expect(lines.filter((l) => /No progress|stall/i.test(l))).toEqual([]);
    expect(sends() - before, 'the part was sent once so far').toBe(1);
    u.engine.setBandwidth(null);
    const summary = await drain;
    expect(summary.completed.map((f) => f.id)).toEqual([file.id]);
    expect(sends() - before, 'the part was sent once').toBe(1);
    expect(lines.filter((l) => /No progress|stall/i.test(l))).toEqual([]);
    expect((await kit.stored(u, file.id)).sha256).toBe(sha256(bytes));
  }, 120_000);
});

describe('pausing or cancelling one file on a slow link', () => {
  it.each(['pause', 'cancel'] as const)(
    '%s stops its bytes reaching storage within 2 s at 128 KiB/s, stored parts kept',
    async (action) => {
      const { path } = makeFile(`stop-${action}.mp4`, 10 * MiB + 1);
      const u = uploader(`stop-${action}`);
      const { queued } = await u.add([path], { structure: kit.svc.info.structures[0]!, type: 'interior' });
      const file = u.queue.filesOf(queued[0]!)[0]!;
      // Storage is slow from the first byte (a link whose buffers grew on fast parts would hold more
      // than a slow link's round trip, which the reset cannot take back): part 1 is stored, then
      // part 2 is stopped midway.
      await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 128 * KiB });
      let partOne = false;
      const off = u.engine.on((e) => {
        if (e.type === 'progress' && e.files.some((f) => f.partsDone >= 1)) partOne = true;
      });
      const drain = u.engine.drain();
      while (!partOne) await sleep(50);
      off();
      const from = kit.svc.storage.bytesReceived;
      while (kit.svc.storage.bytesReceived < from + 256 * KiB) await sleep(50);
      if (action === 'pause') u.engine.pause(file.id);
      else u.engine.cancel(file.id);
      await sleep(2000);
      // Bytes the client wrote before the click may still sit in the kernel's buffers on storage's
      // side, which the throttled storage reads at 128 KiB/s (a reset does not take them back: they
      // were sent). Storage then reads at full speed, so those drain at once, and anything arriving
      // after that is the client still sending: a client that had not stopped would now push MiBs.
      await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
      await sleep(500);
      const settled = kit.svc.storage.bytesReceived;
      await sleep(3000);
      expect(kit.svc.storage.bytesReceived - settled, 'the client still sent bytes more than 2 s after the click').toBe(
        0,
      );
      const summary = await drain;
      expect((action === 'pause' ? summary.paused : summary.cancelled).map((f) => f.id)).toEqual([file.id]);
      expect(u.queue.file(file.id)!.state).toBe(action === 'pause' ? 'paused' : 'cancelled');
      expect(
        u.queue
          .parts(file.id)
          .filter((p) => p.etag)
          .map((p) => p.partNumber),
      ).toEqual([1]);
    },
    180_000,
  );
});
