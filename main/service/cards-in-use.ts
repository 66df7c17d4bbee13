import { existsSync } from 'node:fs';
import type { DetectedCardView } from '../../shared/ipc.js';
import { cardPrefix, remapToCard } from '../card/card-root.js';
import type { QueueDatabase } from '../queue/db.js';
import { QueueMeta } from '../queue/meta.js';
import { unfinishedCapturesUnder } from '../queue/reader.js';
import { RemovedCards } from '../queue/removed-cards.js';

/**
 * The mounted cards with `inUse` set on those the upload queue reads from, so that a card being
 * uploaded from is shown as in use and never offered again as a new card to import, after a
 * restart too (the queue, not the window, remembers it):
 * - a card with unfinished queued files under its root: the recordings (captures) they belong to;
 * - a card a removed card's files wait for (main/queue/removed-cards.ts), put back at this root,
 *   possibly under another mount name, before the queue remapped its files there: `waited`. It is
 *   recognised by a waited-for file found at the same place under this root; the remap itself
 *   checks the content (main/engine/outages/pulled-cards.ts).
 *
 * `db` is the queue's database while the queue is open; without it, or when it cannot be read,
 * the cards are answered as they are (none in use). Never throws.
 */
export function cardsInUse(db: QueueDatabase | undefined, cards: readonly DetectedCardView[]): DetectedCardView[] {
  const plain = cards.map(({ inUse: _, ...c }) => c);
  if (!db || !db.open || cards.length === 0) return plain;
  try {
    const removed = new RemovedCards(db, new QueueMeta(db));
    const waitedFor = removed.list().flatMap((card) => {
      const files = removed.unfinishedOf(card);
      return files.length
        ? [{ card, first: files[0]!.path, recordings: new Set(files.map((f) => f.captureRow)).size }]
        : [];
    });
    return plain.map((c) => {
      const recordings = unfinishedCapturesUnder(db, cardPrefix(c.root));
      const back = waitedFor.find((w) => {
        const there = remapToCard(w.first, w.card.root, c.root);
        return there !== null && existsSync(there);
      });
      if (back) return { ...c, inUse: { recordings: Math.max(recordings, back.recordings), waited: true } };
      return recordings > 0 ? { ...c, inUse: { recordings, waited: false } } : c;
    });
  } catch {
    return plain;
  }
}
