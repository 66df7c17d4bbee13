import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

// The camera's own low-resolution proxy of a recording: Insta360 cameras write, beside each
// recording VID_<date>_<time>_<lens>_<NNN>.insv (or .mp4), a preview LRV_<date>_<time>_<lens>_<NNN>
// (.lrv on the X3 and X4, .insv on earlier models; lens 11 on the cameras seen so far), an H.264 video
// of a few hundred pixels that Insta360 Studio previews from. A thumbnail decoded from it costs a
// fraction of one decoded from a 5.7K recording, and it is H.264 where the recording may be HEVC,
// which not every Chromium decodes.

const RECORDING = /^(?:VID|PRO_VID|IMG)_(\d{8}_\d{6})_\d{2}_(\d{3})\.(?:insv|mp4)$/i;
const PREVIEW = /^LRV_(\d{8}_\d{6})_(\d{2})_(\d{3})\.(?:lrv|insv|mp4)$/i;

/**
 * The preview (LRV) of the recording at `path` in the same folder: the LRV_ file of the same date,
 * time and segment number, lens 11 first; undefined when the name is not a camera's or no preview
 * is there (or the folder cannot be listed). Only lists the folder: no file is opened.
 */
export async function previewOf(path: string): Promise<string | undefined> {
  const m = RECORDING.exec(basename(path));
  if (!m) return undefined;
  const [, at, segment] = m;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  const found = names
    .map((n) => ({ n, p: PREVIEW.exec(n) }))
    .filter(({ p }) => p && p[1] === at && p[3] === segment)
    .sort((a, b) => Number(b.p![2] === '11') - Number(a.p![2] === '11') || a.n.localeCompare(b.n));
  return found[0] ? join(dirname(path), found[0].n) : undefined;
}
