import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What writeFakeCard wrote: the recordings (both lenses) and the files that are not recordings. */
export interface FakeCard {
  root: string;
  /** Absolute paths of every .insv lens file, in name order per camera folder. */
  recordings: string[];
  /** LRV_ previews, .thm thumbnails and MISC files. */
  others: string[];
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * Writes a microSD card as an Insta360 camera lays it out, for tests and the benchmark (never a
 * real recording): `DCIM/Camera01/` holding per recording the two lenses
 * `VID_YYYYMMDD_HHMMSS_00_NNN.insv` and `_10_`, a preview `LRV_…_11_NNN.insv` and a thumbnail
 * `…_11_NNN.thm`; and `MISC/` with the camera's own files. Recordings are a minute apart from
 * `start` (local time); each lens holds `bytes` random bytes (default 2048 + its number).
 */
export function writeFakeCard(
  root: string,
  opts: { recordings: number; start?: Date; firstSegment?: number; bytes?: number; camera?: string },
): FakeCard {
  const dir = join(root, 'DCIM', opts.camera ?? 'Camera01');
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(root, 'MISC'), { recursive: true });
  const start = opts.start ?? new Date(2026, 10, 24, 8, 0, 0);
  const card: FakeCard = { root, recordings: [], others: [] };
  for (let i = 0; i < opts.recordings; i++) {
    const d = new Date(start.getTime() + i * 60_000);
    const at = `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}_${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
    const nnn = pad((opts.firstSegment ?? 1) + i, 3);
    for (const lens of ['00', '10']) {
      const p = join(dir, `VID_${at}_${lens}_${nnn}.insv`);
      writeFileSync(p, randomBytes(opts.bytes ?? 2048 + i));
      card.recordings.push(p);
    }
    for (const [name, size] of [
      [`LRV_${at}_11_${nnn}.insv`, 512],
      [`VID_${at}_11_${nnn}.thm`, 64],
    ] as const) {
      writeFileSync(join(dir, name), randomBytes(size));
      card.others.push(join(dir, name));
    }
  }
  writeFileSync(join(root, 'MISC', 'version.txt'), 'fw v1.0\n');
  card.others.push(join(root, 'MISC', 'version.txt'));
  return card;
}
