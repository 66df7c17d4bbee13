import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A local time as Insta360 names carry it: YYYYMMDD_HHMMSS. */
export const stamp = (d: Date) =>
  `${d.getFullYear()}${String(d.getMonth() + 1).padStart(2, '0')}${String(d.getDate()).padStart(2, '0')}_${[d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join('')}`;

/**
 * Writes a card folder as an Insta360 camera would: per recording the two lenses
 * (VID_…_00_NNN.insv, VID_…_10_NNN.insv) and a preview (LRV_…_11_NNN.insv), small random bytes.
 * `walks` gives each walk's first recording time (local) and count, recordings `stepS` seconds
 * apart. Answers the segment number after the last one written.
 */
export function writeCard(
  dir: string,
  walks: { start: Date; count: number; stepS: number }[],
  firstSegment = 1,
): number {
  mkdirSync(dir, { recursive: true });
  let segment = firstSegment;
  for (const w of walks) {
    for (let i = 0; i < w.count; i++, segment++) {
      const at = stamp(new Date(w.start.getTime() + i * w.stepS * 1000));
      const nnn = String(segment).padStart(3, '0');
      for (const lens of ['00', '10'])
        writeFileSync(join(dir, `VID_${at}_${lens}_${nnn}.insv`), randomBytes(2048 + segment));
      writeFileSync(join(dir, `LRV_${at}_11_${nnn}.insv`), randomBytes(512));
    }
  }
  return segment;
}
