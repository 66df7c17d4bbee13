import { whenAt } from '../../../../shared/when.js';
import type { CopyState } from '../../cards-slice.js';
import type { DraftCapture } from '../../placement.js';

/** What a row of a card being imported says of its copy, and the longer sentence behind it. */
export const COPY_WORDS: Record<CopyState, [string, string]> = {
  copying: [
    'Copying',
    'Its copy is not verified yet. Place it now: it uploads from the verified copy, never from the card.',
  ],
  verified: ['Verified', 'Its copy is verified: it uploads from the copy.'],
  failed: [
    'Not verified: uploads from the card',
    'Its copy failed verification twice: it uploads straight from the card, so keep the card in the reader until it finishes.',
  ],
  uploaded: [
    'Already uploaded',
    'An earlier import of this card copied it, and its copy is uploaded: it is not copied or uploaded again.',
  ],
  queued: [
    'Already queued',
    'An earlier import of this card copied it, and its copy waits in the queue: it is not copied or queued again.',
  ],
  imported: [
    'Already imported',
    'An earlier import of this card copied and verified it: it is not copied again, and uploads from that copy once placed.',
  ],
};

/** The columns of the registration table, in order (the header and the full-width rows use it). */
export const COLUMN_COUNT = 9;

// To the second: two recordings can start in the same minute. The one time format.
export const clock = (iso: string) => whenAt(iso, { seconds: true });
/** How many lenses a recording has (`MP4` for a flat video). */
export const lenses = (kind: DraftCapture['proposal']['kind']) =>
  kind === 'dual-lens' ? '2' : kind === 'single-lens' ? '1' : 'MP4';
/** A duration in seconds as m:ss, `—` when unknown. */
export const duration = (s?: number) =>
  s === undefined ? '—' : `${Math.floor(s / 60)}:${String(Math.round(s % 60)).padStart(2, '0')}`;
