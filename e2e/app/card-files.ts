import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

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

/**
 * Mounts a card under `mounts` as a volume appears (written aside in `staging`, then moved in
 * whole): `DCIM/Camera01` holding the `walks` as writeCard writes them (two lenses and a preview
 * per recording), the `extras` files written there after them (path relative to Camera01, bytes,
 * modification time), and `MISC/`. Answers the card's root at the mount.
 */
export function mountWalks(
  staging: string,
  mounts: string,
  name: string,
  walks: { start: Date; count: number; stepS: number }[],
  extras: { path: string; bytes: Buffer; mtime?: Date }[] = [],
): string {
  const root = join(staging, name);
  const camera = join(root, 'DCIM', 'Camera01');
  writeCard(camera, walks);
  for (const e of extras) {
    const p = join(camera, e.path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, e.bytes);
    if (e.mtime) utimesSync(p, e.mtime, e.mtime);
  }
  mkdirSync(join(root, 'MISC'), { recursive: true });
  writeFileSync(join(root, 'MISC', 'version.txt'), 'fw v1.0\n');
  const mounted = join(mounts, name);
  renameSync(root, mounted);
  return mounted;
}

/** Seconds between 1904-01-01 (the MP4 epoch) and 1970-01-01. */
const MP4_EPOCH = 2_082_844_800;

/**
 * Writes a card folder of real Insta360 recordings made from `sample` (the fixture sample.insv:
 * its MP4 header and its trailer, serial number IAEAN00000XXXX): two lenses per recording, each
 * copy made distinct by a byte of its media data (so no two are the same recording), its MP4
 * header's creation time set to the name's wall time (as many cameras write it), and a preview.
 * `walks` as writeCard takes them.
 */
export function writeInsta360Card(dir: string, sample: Buffer, walks: { start: Date; count: number; stepS: number }[]) {
  mkdirSync(dir, { recursive: true });
  const mvhd = sample.indexOf('mvhd');
  const mdat = sample.indexOf('mdat');
  let segment = 1;
  for (const w of walks) {
    for (let i = 0; i < w.count; i++, segment++) {
      const d = new Date(w.start.getTime() + i * w.stepS * 1000);
      const at = stamp(d);
      const nnn = String(segment).padStart(3, '0');
      const wall = Date.UTC(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds());
      for (const [k, lens] of ['00', '10'].entries()) {
        const copy = Buffer.from(sample);
        copy.writeUInt32BE(wall / 1000 + MP4_EPOCH, mvhd + 8);
        copy.writeUInt16BE(segment * 2 + k, mdat + 200);
        writeFileSync(join(dir, `VID_${at}_${lens}_${nnn}.insv`), copy);
      }
      writeFileSync(join(dir, `LRV_${at}_11_${nnn}.insv`), randomBytes(512));
    }
  }
}
