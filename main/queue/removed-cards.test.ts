import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempQueue } from '../testing/kit.js';
import type { UploadQueue } from './queue.js';
import { RemovedCards } from './removed-cards.js';
import { fillQueue } from './testing.js';

// Issue 19 deliver 5: the cards the queue waits for, kept in the queue; their files are not
// started, their recordings are counted once, and their paths move with the card.

let t: ReturnType<typeof tempQueue>;
let q: UploadQueue;
let cards: RemovedCards;
beforeEach(() => {
  t = tempQueue('removed-cards');
  q = t.queue;
  cards = new RemovedCards(q.db, q.meta);
});
afterEach(() => t.close());

const card = { root: '/card', name: 'card', volumeId: null, since: '2026-11-25T10:00:00.000Z' };

describe('removed cards', () => {
  it('files on a removed card are neither due nor scheduled; their recordings are counted in the totals', () => {
    const [a, b, c] = fillQueue(q, 2); // every file under /card
    q.moveFile(a!, ['pending'], 'completed');
    q.moveFile(b!, ['pending'], 'pending', { retryAt: Date.now() - 1000, transient: true });
    expect(q.schedule.dueFiles(Date.now(), 10).length).toBe(3);
    expect(cards.add(card)).toBe(true);
    expect(cards.add({ ...card, since: 'later' })).toBe(false); // one wait per card
    expect(q.schedule.dueFiles(Date.now(), 10, [], cards.prefixes())).toEqual([]);
    expect(q.schedule.nextDueAt(cards.prefixes())).toBeNull(); // b's past retry time does not spin the drain
    expect(q.totals().cardWait).toEqual({ cards: 1, recordings: 2 });
    // A card at /car is another card: /card's files are not under it.
    expect(q.schedule.dueFiles(Date.now(), 10, [], ['/car/']).map((f) => f.id)).toContain(c);
    cards.drop('/card');
    expect(q.totals().cardWait).toEqual({ cards: 0, recordings: 0 });
  });

  it('remaps every path of the card to where it is back, with the identity seen there, and ends the wait', () => {
    const [a, b] = fillQueue(q, 1);
    q.moveFile(a!, ['pending'], 'completed');
    cards.add(card);
    const moved = cards.remap(card, '/media/ana/X4_2', new Map([[b!, { dev: '7', ino: '8', ctimeNs: '9' }]]));
    expect(moved.map((f) => [f.id, f.path, f.dev, f.ino, f.ctimeNs])).toEqual([[b, '/media/ana/X4_2/VID_0_2.insv', '7', '8', '9']]);
    expect(q.file(a!)!.path).toBe('/media/ana/X4_2/VID_0_1.insv');
    expect(cards.list()).toEqual([]);
  });
});
