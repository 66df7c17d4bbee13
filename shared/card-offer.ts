import { formatBytes } from './format.js';
import { localDate } from './when.js';

/** A card as offered: its recordings (captures, both lenses one) and their bytes. */
export interface CardSummary {
  recordings: number;
  bytes: number;
}

/** What the app and `capture-uploader cards` say of a card: "Insta360 card, 48 recordings, 96 GiB". */
export function describeCard(c: CardSummary): string {
  return `Insta360 card, ${c.recordings} recording${c.recordings === 1 ? '' : 's'}, ${formatBytes(c.bytes)}`;
}

/**
 * A card's recordings found in the library already (main/offload/known-copies.ts summarizeKnown):
 * `known` of `recordings`, of which `uploaded` are uploaded, `queued` wait in the queue and
 * `copied` are copied and not queued; `importedAt` (ISO 8601) and `destination` the newest
 * offload that copied them.
 */
export interface KnownCardSummary {
  recordings: number;
  known: number;
  uploaded: number;
  queued: number;
  copied: number;
  importedAt: string | null;
  destination: string | null;
}

/**
 * What the app and `capture-uploader import` say of a card put back: "Already imported on 26 Nov
 * to FOLDER: 100 of 100 recordings (98 uploaded, 2 waiting to upload)"; "" when none is known.
 * The date is the local one (shared/when.ts localDate); `now` and `locale` are for tests.
 */
export function describeKnownCard(k: KnownCardSummary, opts: { now?: number; locale?: string } = {}): string {
  if (k.known === 0 || !k.importedAt) return '';
  const parts = [
    k.uploaded ? `${k.uploaded} uploaded` : '',
    k.queued ? `${k.queued} waiting to upload` : '',
    k.copied ? `${k.copied} not placed yet` : '',
  ].filter(Boolean);
  return `Already imported on ${localDate(k.importedAt, opts)} to ${k.destination}: ${k.known} of ${k.recordings} recording${k.recordings === 1 ? '' : 's'} (${parts.join(', ')})`;
}
