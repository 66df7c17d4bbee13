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
  /** Absolute paths of the LRV_ previews, one per recording, in the order of `recordings`' pairs. */
  previews: string[];
}

/**
 * Real bytes for a fake card's files instead of random ones (e.g. the fixture sample.insv), so a
 * window can decode them: `lens` for each lens file (or made per recording, 0 for the first, and
 * lens, so that each holds its own content), `preview` for each LRV_ preview.
 */
export interface FakeCardMedia {
  lens?: Buffer | ((recording: number, lens: '00' | '10') => Buffer);
  preview?: Buffer;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * Writes a microSD card as an Insta360 camera lays it out, for tests and the benchmark (never a
 * real recording): `DCIM/Camera01/` holding per recording the two lenses
 * `VID_YYYYMMDD_HHMMSS_00_NNN.insv` and `_10_`, a preview `LRV_…_11_NNN.insv` (`.lrv` with
 * `previewExt: 'lrv'`, as the X3 and X4 name them) and a thumbnail `…_11_NNN.thm`; and `MISC/` with
 * the camera's own files. Recordings are a minute apart from `start` (local time); each lens holds
 * `bytes` random bytes (default 2048 + its number), or `media.lens`, and each preview 512 random
 * bytes or `media.preview`.
 */
export function writeFakeCard(
  root: string,
  opts: {
    recordings: number;
    start?: Date;
    firstSegment?: number;
    bytes?: number;
    camera?: string;
    media?: FakeCardMedia;
    previewExt?: 'insv' | 'lrv';
  },
): FakeCard {
  const dir = join(root, 'DCIM', opts.camera ?? 'Camera01');
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(root, 'MISC'), { recursive: true });
  const start = opts.start ?? new Date(2026, 10, 24, 8, 0, 0);
  const card: FakeCard = { root, recordings: [], others: [], previews: [] };
  for (let i = 0; i < opts.recordings; i++) {
    const d = new Date(start.getTime() + i * 60_000);
    const at = `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}_${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
    const nnn = pad((opts.firstSegment ?? 1) + i, 3);
    for (const lens of ['00', '10'] as const) {
      const p = join(dir, `VID_${at}_${lens}_${nnn}.insv`);
      const media = opts.media?.lens;
      writeFileSync(p, typeof media === 'function' ? media(i, lens) : (media ?? randomBytes(opts.bytes ?? 2048 + i)));
      card.recordings.push(p);
    }
    const preview = join(dir, `LRV_${at}_11_${nnn}.${opts.previewExt ?? 'insv'}`);
    writeFileSync(preview, opts.media?.preview ?? randomBytes(512));
    card.previews.push(preview);
    card.others.push(preview);
    const thm = join(dir, `VID_${at}_11_${nnn}.thm`);
    writeFileSync(thm, randomBytes(64));
    card.others.push(thm);
  }
  writeFileSync(join(root, 'MISC', 'version.txt'), 'fw v1.0\n');
  card.others.push(join(root, 'MISC', 'version.txt'));
  return card;
}
