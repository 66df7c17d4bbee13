import { formatBytes } from './format.js';

/** A card as offered: its recordings (captures, both lenses one) and their bytes. */
export interface CardSummary {
  recordings: number;
  bytes: number;
}

/** What the app and `capture-uploader cards` say of a card: "Insta360 card, 48 recordings, 96 GiB". */
export function describeCard(c: CardSummary): string {
  return `Insta360 card, ${c.recordings} recording${c.recordings === 1 ? '' : 's'}, ${formatBytes(c.bytes)}`;
}
