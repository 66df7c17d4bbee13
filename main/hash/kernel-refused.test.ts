import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { SLOT_BYTES } from './kernel.js';

// The kernel's WebAssembly memory refused, as under `ulimit -v` (a memory reserves gigabytes of
// address space): the module stands in for it with OpenSSL, so no part fails for a local limit.
vi.mock('./kernel.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('./kernel.js')>()),
  md5x4Kernel: () => {
    throw new RangeError('WebAssembly.Instance(): Out of memory: Cannot allocate Wasm memory for new instance');
  },
}));
const { PartMd5, md5KernelRefused, takeSlot } = await import('./local-md5.js');

const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');

describe('PartMd5 where the MD5 kernel cannot be had', () => {
  it('says why, lends no slot, and gives node:crypto digests for any bytes, empty ones too', () => {
    expect(md5KernelRefused()).toMatch(/^WebAssembly\.Instance\(\): Out of memory/);
    expect(takeSlot()).toBeUndefined();
    for (const size of [0, 1, 63, 64, 65, SLOT_BYTES + 7, 3 * SLOT_BYTES]) {
      const data = randomBytes(size);
      const p = new PartMd5();
      for (let at = 0; at < size; at += 100_000) p.update(data.subarray(at, at + 100_000));
      expect(p.digestHex()).toBe(md5(data));
    }
    expect(new PartMd5().digestHex()).toBe('d41d8cd98f00b204e9800998ecf8427e');
  });
});
