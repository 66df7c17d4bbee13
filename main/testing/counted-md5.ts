import type * as LocalMd5 from '../hash/local-md5.js';

/** What the uploader's part sender hashed: `n` bytes fed to PartMd5, `slots` slots of the MD5 kernel's memory taken. */
export interface Md5Count {
  n: number;
  slots: number;
}

/**
 * main/hash/local-md5.ts as a test's `vi.mock` factory returns it: `lanes` (the real module, from
 * `importOriginal`) with a PartMd5 that adds every byte it is fed to `count.n` and a takeSlot that
 * adds every slot taken to `count.slots`; everything else as it is. `count` comes from `vi.hoisted`,
 * so the factory can reach it.
 */
export function countedLocalMd5(lanes: typeof LocalMd5, count: Md5Count): typeof LocalMd5 {
  class CountedPartMd5 extends lanes.PartMd5 {
    override update(chunk: Buffer, hashed?: () => void): void {
      count.n += chunk.length;
      super.update(chunk, hashed);
    }
  }
  const takeSlot = () => {
    count.slots++;
    return lanes.takeSlot();
  };
  return { ...lanes, PartMd5: CountedPartMd5, takeSlot };
}
