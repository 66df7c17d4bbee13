import { captureLabel } from './capture-label.js';
import { CAPTURE_RULE_MESSAGES, isVideo, mediaKindOf } from './capture-rules.js';

/** A file offered for upload: its path, its base name and its size in bytes. */
export interface CandidateFile {
  path: string;
  name: string;
  size: number;
}

/** How a proposed capture was recognised. */
type CaptureKind = 'dual-lens' | 'single-lens' | 'video';

/**
 * Files that belong to one recording, in upload order (lens 00, lens 10, then the CSV).
 * `recordedAt` is the local date-time the Insta360 name carries (`YYYY-MM-DDTHH:MM:SS`, no zone),
 * when it has one; `segment` is the camera's segment number (NNN) of a split recording.
 */
export interface ProposedCapture {
  key: string;
  kind: CaptureKind;
  label: string;
  files: CandidateFile[];
  recordedAt?: string;
  segment?: string;
}

/** A file that will not be uploaded, with the reason a person reads. */
export interface SetAsideFile {
  file: CandidateFile;
  reason: string;
}

// Insta360 names (fixtures README): VID_<YYYYMMDD>_<HHMMSS>_<lens 00|10>_<NNN>.insv; LRV_ are previews.
const INSTA360 = /^(?:VID|PRO_VID|IMG)_(\d{8})_(\d{6})_(\d{2})_(\d{3})\.insv$/i;
const PREVIEW = /^LRV_/i;
// Insta360 cameras write a small JPEG thumbnail (.thm) beside each recording; macOS leaves
// AppleDouble companions (._NAME) on cards it has opened. Neither is a recording.
const THUMBNAIL = /\.thm$/i;
const APPLE_DOUBLE = /^\._/;

/** The reason a folder that holds no recording gives. `folder` as given. */
export const noRecordingsIn = (folder: string): string =>
  `No recordings found in ${folder} (looked for .insv, .mp4, .csv)`;

/**
 * Whether a file name is one that may be uploaded: .insv, .mp4 or .csv by its extension (§8),
 * and not a camera preview (LRV_) or a macOS companion file (._).
 */
export const isMediaName = (name: string): boolean =>
  mediaKindOf(name) !== undefined && !PREVIEW.test(name) && !APPLE_DOUBLE.test(name);

/** A name's base without its extension, compared in Unicode NFC and lower case: a file copied from a Mac (NFD) pairs with its partner written in NFC. */
const baseName = (name: string) =>
  name
    .normalize('NFC')
    .replace(/\.[^.]+$/, '')
    .toLowerCase();

/**
 * Groups dropped files into captures the way the camera wrote them:
 * the `_00_` and `_10_` lenses of one dual-lens recording together (same date, time and NNN);
 * a lone `_00_` as a single-lens recording; each split segment (another NNN) as its own capture;
 * any other `.insv` or `.mp4` on its own; a `.csv` with the video of the same base name.
 *
 * Set aside, with a reason: low-resolution previews (`LRV_`), thumbnails (`.thm`), macOS `._`
 * companions, unsupported types, empty files,
 * a `_10_` lens without its `_00_`, a CSV without a video, and the same path given twice.
 */
export function groupIntoCaptures(files: readonly CandidateFile[]): {
  captures: ProposedCapture[];
  setAside: SetAsideFile[];
} {
  const setAside: SetAsideFile[] = [];
  const seen = new Set<string>();
  const recordings = new Map<
    string,
    { lens: Map<string, CandidateFile>; date: string; time: string; segment: string }
  >();
  const others: CandidateFile[] = [];
  const csvs: CandidateFile[] = [];

  for (const f of files) {
    if (seen.has(f.path)) {
      setAside.push({ file: f, reason: 'Listed twice; it is queued once.' });
      continue;
    }
    seen.add(f.path);
    const kind = mediaKindOf(f.name);
    if (PREVIEW.test(f.name)) {
      setAside.push({
        file: f,
        reason: 'Low-resolution preview (LRV_) written by the camera, not a capture; it is not uploaded.',
      });
    } else if (THUMBNAIL.test(f.name)) {
      setAside.push({
        file: f,
        reason: 'Thumbnail (.thm) written by the camera beside a recording, not a capture; it is not uploaded.',
      });
    } else if (APPLE_DOUBLE.test(f.name)) {
      setAside.push({
        file: f,
        reason: 'A file macOS leaves on cards it has opened (._), not a recording; it is not uploaded.',
      });
    } else if (!kind) {
      setAside.push({
        file: f,
        reason: `${CAPTURE_RULE_MESSAGES.fileType}: only .insv, .mp4 and .csv files are uploaded.`,
      });
    } else if (f.size === 0) {
      setAside.push({ file: f, reason: 'The file is empty (0 bytes); copy it from the camera again.' });
    } else if (kind === 'csv') {
      csvs.push(f);
    } else {
      const m = INSTA360.exec(f.name);
      if (!m) {
        others.push(f);
        continue;
      }
      const [, date, time, lens, segment] = m as unknown as [string, string, string, string, string];
      const key = `${date}_${time}_${segment}`;
      const rec = recordings.get(key) ?? { lens: new Map(), date, time, segment };
      recordings.set(key, rec);
      if (rec.lens.has(lens))
        setAside.push({ file: f, reason: `Another file is lens ${lens} of the same recording already.` });
      else rec.lens.set(lens, f);
    }
  }

  const captures: ProposedCapture[] = [];
  for (const [key, rec] of recordings) {
    const lens00 = rec.lens.get('00');
    const lens10 = rec.lens.get('10');
    const recordedAt = `${rec.date.slice(0, 4)}-${rec.date.slice(4, 6)}-${rec.date.slice(6, 8)}T${rec.time.slice(0, 2)}:${rec.time.slice(2, 4)}:${rec.time.slice(4, 6)}`;
    if (!lens00) {
      for (const f of rec.lens.values()) {
        setAside.push({
          file: f,
          reason: `Lens ${[...rec.lens.keys()].join(', ')} of a dual-lens recording without its _00_ file; add VID_${rec.date}_${rec.time}_00_${rec.segment}.insv too.`,
        });
      }
      continue;
    }
    const extra = [...rec.lens.entries()].filter(([l]) => l !== '00' && l !== '10');
    for (const [, f] of extra)
      setAside.push({ file: f, reason: 'Unknown lens number; Insta360 cameras write lenses 00 and 10.' });
    const lensFiles = lens10 ? [lens00, lens10] : [lens00];
    // A name whose date or time cannot be (a renamed file: second 60, month 13) still groups by
    // name, but carries no recording time: the media's own time or the file's is used instead.
    const real = isRealDateTime(recordedAt);
    captures.push({
      key,
      kind: lens10 ? 'dual-lens' : 'single-lens',
      // The camera's clock until a capture time is chosen: the intake and the registration table
      // build the label again from the time the platform gets (shared/capture-label.ts).
      label: captureLabel({ ...(real ? { capturedAt: recordedAt } : {}), fileNames: lensFiles.map((f) => f.name) }),
      files: lensFiles,
      ...(real ? { recordedAt } : {}),
      segment: rec.segment,
    });
  }
  for (const f of others) captures.push({ key: f.path, kind: 'video', label: f.name, files: [f] });
  captures.sort((a, b) => a.key.localeCompare(b.key));

  for (const csv of csvs) {
    const target = captures.find((c) =>
      c.files.some((f) => isVideo(mediaKindOf(f.name)) && baseName(f.name) === baseName(csv.name)),
    );
    if (target && !target.files.some((f) => mediaKindOf(f.name) === 'csv')) target.files.push(csv);
    else
      setAside.push({
        file: csv,
        reason: `${CAPTURE_RULE_MESSAGES.noVideo}: add the .mp4 or .insv of the same name as this CSV.`,
      });
  }
  return { captures, setAside };
}

/** Whether `YYYY-MM-DDTHH:MM:SS` names a moment that exists (no 30 February, no second 60). */
function isRealDateTime(text: string): boolean {
  const [y, mo, d, h, mi, se] = text.split(/[-T:]/).map(Number) as [number, number, number, number, number, number];
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, se));
  return (
    t.getUTCFullYear() === y &&
    t.getUTCMonth() === mo - 1 &&
    t.getUTCDate() === d &&
    t.getUTCHours() === h &&
    t.getUTCMinutes() === mi &&
    t.getUTCSeconds() === se
  );
}
