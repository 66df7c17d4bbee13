/**
 * The one name a person reads for a capture, everywhere it is shown (queue row, registration
 * table, confirmation, warnings, `status`, `log`, accessible names): built from the capture time
 * the platform gets (capture-upload-interface.md §4.4 `captureDateTime`, a time shift or a
 * correction included), never from the camera's clock in the file name. See
 * docs/capture-labels.md.
 */

// Insta360 names (fixtures README): VID_<YYYYMMDD>_<HHMMSS>_<lens 00|10>_<NNN>.insv.
const INSTA360 = /^(?:VID|PRO_VID|IMG)_\d{8}_\d{6}_(\d{2})_(\d{3})\.insv$/i;
// A label's leading date, the part every capture of one card shares (captureLabelParts).
const LEADING_DATE = /^(\d{4}-\d{2}-\d{2} )(?=\d{2}:\d{2}:\d{2})/;

const pad = (n: number) => String(Math.abs(n)).padStart(2, '0');

/** What a capture's label is built from. */
export interface CaptureLabelInput {
  /**
   * The capture time: ISO 8601 with a zone (§4.4 captureDateTime), or a wall time without one
   * (`YYYY-MM-DDTHH:MM:SS`, read as this computer's local time). Absent or unreadable: the
   * label names the first file instead.
   */
  capturedAt?: string;
  /** The capture's file names in upload order (lens 00, lens 10, then any CSV); at least one. */
  fileNames: readonly string[];
}

/** Options of captureLabel. */
export interface CaptureLabelOptions {
  /** Shows the UTC offset after the time (`10:15:03 UTC+01:00`), for readers who may sit in another zone. */
  zone?: boolean;
}

/** An instant's UTC offset on this computer, as `UTC+01:00`. */
function zoneOf(d: Date): string {
  const minutes = -d.getTimezoneOffset();
  return `UTC${minutes < 0 ? '-' : '+'}${pad(Math.trunc(minutes / 60))}:${pad(minutes % 60)}`;
}

/**
 * A capture's label: `2026-11-20 11:15:03 · segment 004 · 2 lenses` for an Insta360 recording
 * (date and time in this computer's local time, to the second: two recordings may start in the
 * same minute), and the first file's name for any other video (`walk.mp4`: a name a person gave,
 * with no camera clock in it to contradict the time sent) or when the time cannot be read
 * (`VID_20261120_101503 · segment 004`). Never throws.
 */
export function captureLabel(input: CaptureLabelInput, opts: CaptureLabelOptions = {}): string {
  const first = input.fileNames[0] ?? '';
  const m = INSTA360.exec(first);
  if (!m) return first;
  const lenses = input.fileNames.filter((n) => INSTA360.test(n)).length;
  const what = `segment ${m[2]}${lenses >= 2 ? ' · 2 lenses' : ''}`;
  const ms = input.capturedAt ? Date.parse(input.capturedAt) : NaN;
  if (Number.isNaN(ms)) return `${first.replace(/_\d{2}_\d{3}\.insv$/i, '')} · ${what}`;
  const d = new Date(ms);
  const when = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return `${when}${opts.zone ? ` ${zoneOf(d)}` : ''} · ${what}`;
}

/**
 * A label cut in three for a line too narrow for it: `common`, the leading date the captures of
 * one card share (shortened first, with "…"); `distinct`, the time and segment that tell rows
 * apart (never shortened); `rest`, what follows (` · 2 lenses`, shortened next). A label without
 * a leading date is all `distinct`.
 */
export function captureLabelParts(label: string): { common: string; distinct: string; rest: string } {
  const m = LEADING_DATE.exec(label);
  if (!m) return { common: '', distinct: label, rest: '' };
  const tail = label.slice(m[1]!.length);
  const seg = /^.*?segment \d+/.exec(tail);
  return seg
    ? { common: m[1]!, distinct: seg[0], rest: tail.slice(seg[0].length) }
    : { common: m[1]!, distinct: tail, rest: '' };
}

/** A capture's label with its file names after it, for hover and accessible names: the camera's own names stay readable. */
export function captureFullName(label: string, fileNames: readonly string[]): string {
  return fileNames.length ? `${label} (${fileNames.join(', ')})` : label;
}
