import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeFakeCard } from '../card/fake-card.js';
import { drainExitCode } from '../cli/render.js';
import { clearReadFault, readFault } from '../testing/fs-fault.js';
import type { ServiceKit } from '../testing/kit.js';
import { MiB, startServiceKit } from '../testing/kit.js';

// A fault of this computer itself, not of the file nor of a card: memory that cannot be had
// (ENOMEM), or this computer's own disk failing a read (EIO of a file that is on no card or
// removable drive). Every other file would meet it too: the drain stops with one sentence
// (exit 2: a local fault), and nothing is marked failed; the next run carries on. A card's EIO
// stays a device error (card-read-error.test.ts).

vi.mock('node:fs', async (importOriginal) =>
  (await import('../testing/fs-fault.js')).faultyFs(await importOriginal<typeof import('node:fs')>()),
);

let kit: ServiceKit;
beforeAll(async () => {
  kit = await startServiceKit('local-fault');
});
afterEach(async () => {
  clearReadFault();
  await kit.reset();
});
afterAll(async () => kit.stop());

async function drainWithFault(name: string, path: string, code: string) {
  const u = kit.uploader(name, {
    concurrency: 1,
    cards: { mountRoots: [join(kit.work, 'media')], deviceRetryMs: [50, 50] },
  });
  const { queued } = await u.add([path], { structure: kit.structure(), type: 'interior' });
  const file = u.queue.filesOf(queued[0]!).find((f) => f.path === path)!;
  // The second part's first read: part 1 is stored by then.
  Object.assign(readFault, { path, position: 5 * MiB, code, times: Infinity });
  const summary = await u.engine.drain({ wait: true, deadline: Date.now() + 60_000 });
  return { u, file, summary };
}

describe('a fault of this computer stops the drain, and nothing is marked failed', () => {
  it.each([
    [
      'EIO from this computer’s own disk',
      'EIO',
      /^This computer's own disk failed to read .*own-disk\.mp4 \(EIO\): check the disk \(its health, its free space, its cable\), then run again\. Nothing was marked failed; nothing queued was lost\.$/,
    ],
    [
      'ENOMEM',
      'ENOMEM',
      /^This computer ran out of memory reading .*own-disk\.mp4 \(ENOMEM\): close other programs, or run with a lower --concurrency, then run again\. Nothing was marked failed; nothing queued was lost\.$/,
    ],
  ])('%s: one sentence, exit 2, the file pending with its stored part kept', async (_what, code, sentence) => {
    const { path } = kit.file('own-disk.mp4', 6 * MiB);
    const { u, file, summary } = await drainWithFault(`own-${code}`, path, code);

    expect({ fatal: summary.fatal, failed: summary.failed.map((f) => f.error) }).toEqual({
      fatal: expect.stringMatching(sentence),
      failed: [],
    });
    expect(readFault.fired, 'reads that failed').toBe(1);
    expect(drainExitCode(summary)).toBe(2);
    const row = u.queue.file(file.id)!;
    expect([row.state, row.error, row.attempts]).toEqual(['pending', null, 0]);
    expect(
      u.queue
        .parts(file.id)
        .filter((p) => p.etag)
        .map((p) => p.partNumber),
    ).toEqual([1]);
    expect(u.queue.activity.list().filter((a) => a.kind === 'failed')).toEqual([]);

    // The fault gone, the next run completes it.
    clearReadFault();
    await u.close();
    const again = kit.uploader(`own-${code}`);
    expect((await again.engine.drain()).completed.map((f) => f.id)).toEqual([file.id]);
  });

  it('ENOMEM while reading a card is this computer’s too', async () => {
    const card = writeFakeCard(join(kit.work, 'media', 'X4_CARD'), { recordings: 1, bytes: 6 * MiB });
    const { u, file, summary } = await drainWithFault('card-enomem', card.recordings[0]!, 'ENOMEM');
    expect({ fatal: summary.fatal, failed: summary.failed.map((f) => f.error) }).toEqual({
      fatal: expect.stringMatching(/^This computer ran out of memory reading .* \(ENOMEM\)/),
      failed: [],
    });
    expect(drainExitCode(summary)).toBe(2);
    expect(u.queue.file(file.id)!.state).toBe('pending');
  });
});
