import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PartMd5Pool } from './pool.js';

const reference = (bytes: Buffer, partSize: number) =>
  Array.from({ length: Math.max(1, Math.ceil(bytes.length / partSize)) }, (_, i) =>
    createHash('md5')
      .update(bytes.subarray(i * partSize, (i + 1) * partSize))
      .digest('hex'),
  ).join('');

/** Lends `bytes` to the pool's thread a slot at a time, as the copy does, and answers its digests (hex). */
async function feed(pool: PartMd5Pool, bytes: Buffer, partSize: number): Promise<string> {
  const file = pool.file(partSize);
  for (let at = 0; at < bytes.length; ) {
    const slot = await pool.take();
    const n = bytes.copy(slot, 0, at, Math.min(bytes.length, at + slot.length - 1 - (at % 7))); // chunks of uneven lengths
    await new Promise((r) => setImmediate(r)); // the copy's write takes a turn of the event loop
    file.add(slot, n);
    at += n;
  }
  return (await file.finish()).toString('hex');
}

describe("PartMd5Pool (the copy's side of the part MD5 thread)", () => {
  it("computes node:crypto's part MD5s on its own thread, for files fed at once through more chunks than the pool has slots", async () => {
    // Four 64 KiB slots: the copy waits for slots throughout, and the thread frees them as it must.
    const pool = PartMd5Pool.start(64 * 1024, 4);
    try {
      const files = [
        { bytes: randomBytes(1_000_003), partSize: 65_537 },
        { bytes: randomBytes(3 * 100_003), partSize: 100_003 },
        { bytes: randomBytes(3 * 100_003 + 1), partSize: 100_003 },
        { bytes: Buffer.alloc(0), partSize: 5 * 1024 * 1024 },
      ];
      const got = await Promise.all(files.map((f) => feed(pool, f.bytes, f.partSize)));
      expect(got).toEqual(files.map((f) => reference(f.bytes, f.partSize)));
      // Every slot came back: four can be taken at once again.
      const slots = await Promise.all([pool.take(), pool.take(), pool.take(), pool.take()]);
      expect(new Set(slots.map((s) => s.byteOffset)).size).toBe(4);
    } finally {
      await pool.close();
    }
  });

  it('once closed, what waits on the thread fails instead of hanging', async () => {
    const pool = PartMd5Pool.start(64 * 1024, 2);
    const file = pool.file(1000);
    const slot = await pool.take();
    file.add(slot, 10);
    await pool.take(); // both slots are out now: the next take waits
    const waiting = expect(pool.take()).rejects.toThrow('The part MD5 thread has ended.');
    await pool.close();
    await waiting;
    await expect(file.finish()).rejects.toThrow('The part MD5 thread has ended.');
  });
});
