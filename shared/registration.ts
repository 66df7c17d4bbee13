/**
 * Pure rules of the registration step, shared by the desktop table and the
 * CLI's `add --dry-run`: site walks found from gaps in recording time, the one sentence that
 * says what will be registered where, and the one line that sums up the files not uploaded.
 */

/** A new site walk starts after a gap in recording time longer than this (30 min, in ms). */
const SITE_WALK_GAP_MS = 30 * 60_000;

/** Consecutive items (in recording order) recorded with no gap over `SITE_WALK_GAP_MS`. Times in ms since the epoch. */
export interface SiteWalk<T> {
  /** 1-based, in recording order. */
  number: number;
  /** Recording time of the first and last item, ms since the epoch. */
  start: number;
  end: number;
  items: T[];
}

/**
 * Sorts items by recording time (`timeOf`, ms since the epoch; ties keep their input order) and
 * cuts them into site walks wherever two consecutive recordings are more than `gapMs` apart.
 * Items whose time is not a number (NaN) go to the end, in one walk of their own.
 */
export function groupIntoWalks<T>(
  items: readonly T[],
  timeOf: (item: T) => number,
  gapMs = SITE_WALK_GAP_MS,
): SiteWalk<T>[] {
  const timed = items.map((item, i) => ({ item, i, t: timeOf(item) }));
  const known = timed.filter((x) => Number.isFinite(x.t)).sort((a, b) => a.t - b.t || a.i - b.i);
  const unknown = timed.filter((x) => !Number.isFinite(x.t));
  const walks: SiteWalk<T>[] = [];
  for (const x of known) {
    const last = walks.at(-1);
    if (last && x.t - last.end <= gapMs) {
      last.items.push(x.item);
      last.end = x.t;
    } else walks.push({ number: walks.length + 1, start: x.t, end: x.t, items: [x.item] });
  }
  if (unknown.length) walks.push({ number: walks.length + 1, start: NaN, end: NaN, items: unknown.map((x) => x.item) });
  return walks;
}

/** Where a capture goes, by ids (capture-upload-interface.md §4.4: structure, design, type). */
export interface Placement {
  structure: string;
  design?: string;
  type: 'interior' | 'exterior';
}

/** "Tower A · Level 2", or "Tower A" when there is no design: the names a person reads for a placement. */
export function placementName(structureName: string, designName?: string): string {
  return designName ? `${structureName} · ${designName}` : structureName;
}

/** The identity of a placement, for counting captures per placement. */
const placementKey = (p: Placement): string => `${p.structure}\u0000${p.design ?? ''}\u0000${p.type}`;

/**
 * The sentence a person confirms before anything is sent: "60 captures in Tower A · Level 2
 * (interior), 40 in Tower B · Level 1 (interior)". `placements` has one entry per capture;
 * `nameOf` gives the placement's names (placementName). Largest group first, then by name; the
 * word "captures" appears once, as a person would say it. Empty input gives "no captures".
 */
export function describeRegistration(placements: readonly Placement[], nameOf: (p: Placement) => string): string {
  const groups = new Map<string, { p: Placement; n: number }>();
  for (const p of placements) {
    const k = placementKey(p);
    groups.set(k, { p, n: (groups.get(k)?.n ?? 0) + 1 });
  }
  const parts = [...groups.values()]
    .map(({ p, n }) => ({ n, text: `${nameOf(p)} (${p.type})` }))
    .sort((a, b) => b.n - a.n || a.text.localeCompare(b.text));
  if (parts.length === 0) return 'no captures';
  return parts
    .map(({ n, text }, i) => `${n} ${i === 0 ? (n === 1 ? 'capture ' : 'captures ') : ''}in ${text}`)
    .join(', ');
}

/**
 * The placement most captures of one registration went to (the last of equals), which the next
 * card of the project offers to carry over; undefined for none.
 */
export function mostUsedPlacement(placements: readonly Placement[]): Placement | undefined {
  const counts = new Map<string, { p: Placement; n: number }>();
  let best: { p: Placement; n: number } | undefined;
  for (const p of placements) {
    const k = placementKey(p);
    const c = { p, n: (counts.get(k)?.n ?? 0) + 1 };
    counts.set(k, c);
    if (!best || c.n >= best.n) best = c;
  }
  return best?.p;
}

/** Low-resolution previews the camera writes beside each recording (LRV_…), never uploaded. */
const isPreviewName = (name: string): boolean => /^LRV_/i.test(name);

/** Thumbnails the camera writes beside each recording (….thm), never uploaded. */
const isThumbnailName = (name: string): boolean => /\.thm$/i.test(name);

/** Whether a reason is the one a dropped folder without any recording gives (shared/grouping.ts noRecordingsIn). */
export const isNothingFound = (reason: string): boolean => reason.startsWith('No recordings found in ');

/**
 * A recording file (.insv or .mp4, not a preview): one that was meant to be uploaded, so when it
 * cannot be it is shown as a row of the table with its reason rather than in the skipped summary.
 */
export const isRecordingName = (name: string): boolean => /\.(insv|mp4)$/i.test(name) && !isPreviewName(name);

/**
 * One line summing up the files set aside that are not recordings: "Not uploaded: 100 previews
 * (LRV) and 100 thumbnails (THM) and 2 other files". Names are base names; empty input gives an empty string.
 */
export function describeSkipped(names: readonly string[]): string {
  const previews = names.filter(isPreviewName).length;
  const thumbnails = names.filter(isThumbnailName).length;
  const others = names.length - previews - thumbnails;
  const parts = [
    previews ? `${previews} preview${previews === 1 ? '' : 's'} (LRV)` : '',
    thumbnails ? `${thumbnails} thumbnail${thumbnails === 1 ? '' : 's'} (THM)` : '',
    others ? `${others} ${previews || thumbnails ? 'other ' : ''}file${others === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  return parts.length ? `Not uploaded: ${parts.join(' and ')}` : '';
}
