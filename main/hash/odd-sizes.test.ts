import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SLOT_BYTES } from './kernel.js';
import { PartMd5, giveSlot, takeSlot } from './local-md5.js';

// The part sender's MD5s (local-md5.ts: parts hashed as they are sent, four at a time in the one
// kernel and lane scheduler) must give S3's part ETag, node:crypto's MD5, for parts of any size: empty, shorter than a block, one block
// exactly, one byte over, either side of where the length no longer fits the last block (RFC 1321
// §3.1), and a part one byte over 5 MiB (capture-upload-interface.md §4.6).
const SIZES = [0, 1, 55, 56, 63, 64, 65, 5 * 1024 * 1024 + 1];
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/** The part sender's way: the part read a slot (1 MiB) at a time into the kernel's memory, four parts at once. */
function engineMd5s(parts: Buffer[]): string[] {
  const hashes = parts.map(() => new PartMd5());
  let lent = 0;
  for (let at = 0; parts.some((p) => at < p.length); at += SLOT_BYTES) {
    parts.forEach((p, i) => {
      if (at >= p.length) return;
      const slot = takeSlot()!;
      const n = p.copy(slot, 0, at, Math.min(p.length, at + SLOT_BYTES));
      lent += 1;
      hashes[i]!.update(slot.subarray(0, n), () => {
        giveSlot(slot);
        lent -= 1;
      });
    });
  }
  const digests = hashes.map((h) => h.digestHex());
  expect(lent).toBe(0); // every chunk was hashed, and said so
  return digests;
}

describe('one MD5 module: the engine agrees with node:crypto on parts of odd sizes', () => {
  const parts = SIZES.map((n) => randomBytes(n));

  it("the engine, parts hashed together in the kernel's slots", () => {
    expect(engineMd5s(parts)).toEqual(parts.map(md5));
  });

  it('the engine, each part hashed alone, and a part not read into a slot (OpenSSL)', () => {
    for (const p of parts) expect(engineMd5s([p])).toEqual([md5(p)]);
    for (const p of parts) {
      const h = new PartMd5();
      h.update(Buffer.from(p));
      expect(h.digestHex()).toBe(md5(p));
    }
  });
});
