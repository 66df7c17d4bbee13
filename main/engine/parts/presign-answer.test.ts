import { describe, expect, it } from 'vitest';
import { MiB, useServiceKit } from '../../testing/kit.js';

// A presign-missing answer (§4.5) is held to what the client knows of the file before a byte is
// sent: part numbers within 1…N for its size and part size (a subset: the parts storage lacks),
// each at most once, each URL's scheme and `partNumber` query agreeing with the part it is for.
// An answer that does not fit is asked again as §8 retries a call, then the file fails with one
// sentence naming the file and what the answer held; it is never an outage ("network down").

const kit = useServiceKit('presign-answer');
const fast = (retries: number) => ({ retries, delayMs: () => 5 });
/** Three parts at the local service's 5 MiB part size. */
const SIZE = 10 * MiB + 1;

type Mode = 'beyond' | 'duplicate' | 'swap' | 'zero' | 'fileUrl';

async function queuedFile(name: string) {
  const file = kit.file(`${name}.mp4`, SIZE);
  const u = kit.uploader(name, { apiRetry: fast(2) });
  const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
  const f = u.queue.filesOf(queued[0]!)[0]!;
  return { u, f, file };
}

describe('a presign answer that does not fit the file', () => {
  it.each<[Mode, RegExp]>([
    ['beyond', /^beyond\.mp4: the capture service listed part 10001 for a 3-part file\b/],
    ['duplicate', /^duplicate\.mp4: the capture service listed part 1 twice for a 3-part file\b/],
    ['swap', /^swap\.mp4: the capture service gave part 1 the address of part 2 \(its URL's partNumber is 2\)/],
    ['zero', /^zero\.mp4: the capture service listed part 0 for a 3-part file\b/],
    [
      'fileUrl',
      /^fileUrl\.mp4: the capture service gave part 1 an address that cannot carry it: its scheme is "file:"/,
    ],
  ])(
    '%s, in every answer: nothing sent, asked 1 + 2 times, then the file fails with that sentence',
    async (mode, said) => {
      await kit.fault({
        target: 'gateway',
        operation: 'presign-missing',
        times: 0,
        action: { type: 'badParts', mode },
      });
      const { u, f } = await queuedFile(mode);
      const puts = kit.puts().length;

      const summary = await u.engine.drain();

      expect(kit.puts().length - puts, 'part PUTs sent').toBe(0);
      expect(await kit.fired(), 'presign answers').toEqual([3]);
      expect(summary.failed.map((x) => x.id)).toEqual([f.id]);
      const row = u.queue.file(f.id)!;
      expect([row.state, row.transient, row.nextAttemptAt]).toEqual(['failed', false, null]);
      expect(row.error).toMatch(said);
      expect(row.error).toMatch(/Nothing of it was sent/);
      expect(row.error).not.toMatch(/network|storage (is )?down|X-Amz|passwd/i);
    },
  );

  it.each<Mode>(['beyond', 'duplicate', 'swap', 'zero', 'fileUrl'])(
    '%s once: presigned again, each part stored once, the object byte for byte',
    async (mode) => {
      await kit.fault({
        target: 'gateway',
        operation: 'presign-missing',
        times: 1,
        action: { type: 'badParts', mode },
      });
      const { u, f, file } = await queuedFile(`${mode}-once`);
      const puts = kit.puts().length;

      const summary = await u.engine.drain();

      expect(summary.completed.map((x) => x.id)).toEqual([f.id]);
      expect(
        kit
          .puts()
          .slice(puts)
          .map((r) => r.partNumber)
          .sort(),
      ).toEqual([1, 2, 3]);
      expect((await kit.stored(u, f.id)).sha256).toBe(file.sha256);
    },
  );

  it('missing (a subset: the parts storage lacks) is no refusal: the parts listed go, then the rest, each once', async () => {
    await kit.fault({
      target: 'gateway',
      operation: 'presign-missing',
      times: 1,
      action: { type: 'badParts', mode: 'missing' },
    });
    const { u, f, file } = await queuedFile('missing');
    const puts = kit.puts().length;

    const summary = await u.engine.drain();

    expect(summary.completed.map((x) => x.id)).toEqual([f.id]);
    expect(
      kit
        .puts()
        .slice(puts)
        .map((r) => r.partNumber),
    ).toEqual(expect.arrayContaining([1, 2, 3]));
    expect(kit.puts().length - puts).toBe(3);
    expect((await kit.stored(u, f.id)).sha256).toBe(file.sha256);
  });
});
