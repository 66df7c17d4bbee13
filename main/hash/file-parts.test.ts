import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PartMd5Lanes } from './file-parts.js';

/** node:crypto's MD5 of each part (§4.6), concatenated: what the lanes must answer. */
function reference(bytes: Buffer, partSize: number): string {
  const parts = Math.max(1, Math.ceil(bytes.length / partSize));
  return Array.from({ length: parts }, (_, i) =>
    createHash('md5')
      .update(bytes.subarray(i * partSize, (i + 1) * partSize))
      .digest('hex'),
  ).join('');
}

/** A pool of `slots` slots of `slotBytes`, lanes over it, and the slots it has freed. */
function pool(slots: number, slotBytes: number) {
  const header = 64 * 1024;
  const pages = (header + slots * slotBytes) / 65536;
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  const free = Array.from({ length: slots }, (_, i) => slots - 1 - i);
  const lanes = new PartMd5Lanes({ memory, header, slotBytes, slots }, (slot) => free.push(slot));
  const heap = Buffer.from(memory.buffer);
  /** Copies `bytes` into a free slot (hashing the oldest bytes first when none is) and lends it. */
  const lend = (file: number, bytes: Buffer) => {
    if (free.length === 0) expect(lanes.need()).toBe(true);
    const slot = free.pop()!;
    bytes.copy(heap, header + slot * slotBytes);
    lanes.chunk(file, slot, bytes.length);
  };
  return { lanes, free, lend };
}

describe("PartMd5Lanes (the part MD5 thread's hashing, four parts at a time)", () => {
  it("answers exactly node:crypto's MD5 of each part, for files fed in chunks that straddle parts, several files at once", () => {
    const slotBytes = 64 * 1024;
    const p = pool(6, slotBytes);
    // Part sizes off every block boundary and on them; files empty, an exact multiple, one byte more, one less.
    const cases: { partSize: number; size: number }[] = [];
    for (const partSize of [1, 63, 64, 65, 1000, 4096, 70_001])
      for (const k of [0, 1, 3])
        for (const extra of [0, 1, -1])
          if (k * partSize + extra >= 0) cases.push({ partSize, size: k * partSize + extra });
    cases.push({ partSize: 100_003, size: 1_000_000 }, { partSize: 5 * 1024 * 1024, size: 300_000 });
    for (let i = 0; i < cases.length; i += 3) {
      // Three files at once, their chunks interleaved, each chunk of another length (up to a slot).
      const batch = cases.slice(i, i + 3).map((c, j) => ({ ...c, id: i + j, bytes: randomBytes(c.size), at: 0 }));
      for (const f of batch) p.lanes.begin(f.id, f.partSize);
      while (batch.some((f) => f.at < f.bytes.length)) {
        for (const f of batch) {
          if (f.at >= f.bytes.length) continue;
          const n = Math.min(f.bytes.length - f.at, 1 + Math.floor(Math.random() * slotBytes));
          p.lend(f.id, f.bytes.subarray(f.at, f.at + n));
          f.at += n;
        }
      }
      for (const f of batch)
        expect(p.lanes.end(f.id).toString('hex'), `part size ${f.partSize}, ${f.size} bytes`).toBe(
          reference(f.bytes, f.partSize),
        );
      // Every slot lent came back once its bytes were hashed.
      expect(p.free.length).toBe(6);
    }
    // Most kernel calls advanced four parts (the point of holding chunks back).
    expect(p.lanes.stats.lanes / p.lanes.stats.calls).toBeGreaterThan(2);
  });

  it("an aborted file gives its slots back and leaves the others' digests right", () => {
    const p = pool(4, 64 * 1024);
    const kept = randomBytes(200_000);
    const dropped = randomBytes(150_000);
    p.lanes.begin(1, 10_007);
    p.lanes.begin(2, 10_007);
    p.lend(1, kept.subarray(0, 60_000));
    p.lend(2, dropped.subarray(0, 60_000));
    p.lend(2, dropped.subarray(60_000, 120_000));
    p.lanes.abort(2);
    p.lend(1, kept.subarray(60_000, 120_000));
    p.lend(1, kept.subarray(120_000));
    expect(p.lanes.end(1).toString('hex')).toBe(reference(kept, 10_007));
    expect(p.free.length).toBe(4);
    expect(() => p.lanes.end(2)).toThrow('no file 2');
  });
});
