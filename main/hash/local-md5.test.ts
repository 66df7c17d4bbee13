import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PartMd5, giveSlot, isSlot, takeSlot } from './local-md5.js';
import { SLOT_BYTES } from './kernel.js';

const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');

describe('PartMd5 (the four-lane SIMD MD5)', () => {
  it('gives RFC 1321 test suite digests', () => {
    const h = (s: string) => {
      const p = new PartMd5();
      p.update(Buffer.from(s));
      return p.digestHex();
    };
    expect(h('')).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(h('abc')).toBe('900150983cd24fb0d6963f7d28e17f72');
    expect(h('12345678901234567890123456789012345678901234567890123456789012345678901234567890')).toBe(
      '57edf4a22be3c955ac49da2e2107b67a',
    );
  });

  it('equals node:crypto for any bytes fed in any pieces, the first in a slot (the kernel, later pieces through its scratch) or not (OpenSSL)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 3000 }),
        fc.array(fc.nat(400), { maxLength: 12 }),
        fc.boolean(),
        (bytes, cuts, fromSlot) => {
          const data = Buffer.from(bytes);
          const p = new PartMd5();
          const slot = takeSlot()!;
          let at = 0;
          cuts.forEach((cut, i) => {
            const n = Math.min(cut, data.length - at);
            const piece = data.subarray(at, at + n);
            if (i === 0 && fromSlot) {
              piece.copy(slot);
              p.update(slot.subarray(0, n));
            } else p.update(piece);
            at += n;
          });
          p.update(data.subarray(at));
          expect(p.digestHex()).toBe(md5(data));
          giveSlot(slot);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('hashes parts whose chunks wait in slots, interleaved, each equal to node:crypto, and tells when each chunk is hashed', () => {
    // Six parts at once, chunks of uneven lengths, so lanes run together, alone and with passengers.
    const parts = Array.from({ length: 6 }, (_, i) => ({
      data: randomBytes(3 * SLOT_BYTES - 1000 * i - 7),
      md5: new PartMd5(),
      at: 0,
    }));
    const slotsHeld: Buffer[] = [];
    let hashed = 0;
    let queued = 0;
    for (let round = 0; parts.some((p) => p.at < p.data.length); round++) {
      for (const p of parts) {
        if (p.at >= p.data.length) continue;
        const n = Math.min(p.data.length - p.at, SLOT_BYTES - 64 * ((round + p.data.length) % 5));
        const slot = takeSlot();
        expect(slot).toBeDefined();
        expect(isSlot(slot!)).toBe(true);
        p.data.copy(slot!, 0, p.at, p.at + n);
        p.md5.update(slot!.subarray(0, n), () => {
          hashed++;
          giveSlot(slot!);
        });
        queued++;
        p.at += n;
        slotsHeld.push(slot!);
      }
    }
    for (const p of parts) expect(p.md5.digestHex()).toBe(md5(p.data));
    expect(hashed).toBe(queued);
  });

  it('a chunk in a slot is not read before its part settles or digests: its bytes may not change until then', () => {
    const slot = takeSlot()!;
    const data = randomBytes(SLOT_BYTES);
    data.copy(slot);
    const p = new PartMd5();
    let done = false;
    p.update(slot, () => (done = true));
    expect(done).toBe(false);
    p.settle();
    expect(done).toBe(true);
    slot.fill(0); // changed after settle: the digest is still of the bytes given
    expect(p.digestHex()).toBe(md5(data));
    giveSlot(slot);
  });
});
