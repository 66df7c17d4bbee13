/**
 * Warnings that travel with a capture from the card to the finish line: computed
 * when a card is inspected, shown in the registration table and its confirmation, kept with the
 * capture in the queue (activity lines of kind `warning`), marked on its queue row, and counted at
 * the finish ("All 48 files uploaded, 2 captures with warnings"). A warning never stops an upload:
 * the recording goes up as it is, and a person knows to look at it.
 */

/** The words for a recording whose Insta360 trailer is missing (main/intake.ts says the same, so the two are one). */
export const NO_TRAILER =
  'No Insta360 trailer found at its end: it may not come from an Insta360 camera, or was cut short. Uploaded as it is.';

/** A lone `_00_` lens where the card's other recordings have two lenses. */
export const LONE_LENS =
  'Only the _00_ lens: the other recordings of this card have two lenses, so its _10_ file may be missing. Uploaded with one lens.';

/**
 * A file of a capture listed when the card was read and not added at Register (`name`; `reason`
 * the intake's, e.g. "Cannot be read (ENOENT): …"): the capture was registered without it.
 */
export function vanishedLens(name: string, reason?: string): string {
  const why =
    !reason || /ENOENT/.test(reason)
      ? 'was no longer there at Register'
      : `could not be added at Register (${reason.replace(/[.:].*$/, '')})`;
  return `${name} ${why}: the capture was registered without it. Copy the card again if it should be uploaded.`;
}

/** A capture much shorter than the others of its card (seconds). */
export function shortCapture(seconds: number, usual: number): string {
  const mmss = (s: number) => `${Math.floor(s / 60)}:${String(Math.round(s % 60)).padStart(2, '0')}`;
  return `Much shorter than the others of this card (${mmss(seconds)} against about ${mmss(usual)}): the recording may have stopped early.`;
}

/** What a proposed capture offers for its warnings (shared/ipc.ts ProposedCapture). Sizes in bytes, seconds. */
export interface WarnedProposal {
  kind: 'dual-lens' | 'single-lens' | 'video';
  files: readonly { name: string }[];
  media: { durationSeconds?: number; camera?: { model?: string }; error?: string };
}

/** Below this share of the card's median duration a capture is "much shorter". */
const SHORT_SHARE = 0.5;

/**
 * The warnings of each capture of one card, in the order given: a missing Insta360 trailer (an
 * `.insv` whose camera is unknown), a lone lens (single-lens while the card has dual-lens
 * recordings), and a capture under half the median duration of the card (with three or more
 * durations known). Empty arrays when all is well.
 */
export function proposalWarnings(captures: readonly WarnedProposal[]): string[][] {
  const dual = captures.some((c) => c.kind === 'dual-lens');
  const durations = captures.map((c) => c.media.durationSeconds).filter((d): d is number => d !== undefined && d > 0);
  const sorted = [...durations].sort((a, b) => a - b);
  const median = sorted.length >= 3 ? sorted[Math.floor(sorted.length / 2)]! : undefined;
  return captures.map((c) => {
    const w: string[] = [];
    const insv = c.files.some((f) => /\.insv$/i.test(f.name));
    if (insv && !c.media.error && !c.media.camera?.model) w.push(NO_TRAILER);
    if (dual && c.kind === 'single-lens') w.push(LONE_LENS);
    const d = c.media.durationSeconds;
    if (median !== undefined && d !== undefined && d > 0 && d < median * SHORT_SHARE) w.push(shortCapture(d, median));
    return w;
  });
}
