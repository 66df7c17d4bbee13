import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempQueue } from '../testing/kit.js';
import type { UploadQueue } from './queue.js';
import { RemovedCards } from './removed-cards.js';
import { fillQueue } from '../testing/fill-queue.js';
import { enqueueRegistered, oneFileRequest } from '../testing/queue-rows.js';

// The cards the queue waits for, kept in the queue; their files are not
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
    expect(cards.add(card, c!)).toBe(true);
    expect(cards.add(card, b!)).toBe(false); // one wait per card; b waits already
    expect(cards.list()).toEqual([{ ...card, files: [c, b, c! + 1] }]); // the file that failed, then the card's other unfinished ones
    expect(q.schedule.dueFiles(Date.now(), 10, [], cards.waitingFiles())).toEqual([]);
    expect(q.schedule.nextDueAt(cards.waitingFiles())).toBeNull(); // b's past retry time does not spin the drain
    expect(q.totals().cardWait).toEqual({ cards: 1, recordings: 2, names: ['card'] });
    cards.drop('/card');
    expect(q.totals().cardWait).toEqual({ cards: 0, recordings: 0, names: [] });
  });

  it('another card mounted at the same path meanwhile uploads as usual', () => {
    const [, b] = fillQueue(q, 1);
    cards.add(card, b!);
    const recording = { path: '/card/DCIM/Camera01/B.insv', size: 1024, mtimeMs: 0 };
    const request = oneFileRequest(recording, '2026-11-25T08:00:00Z');
    const other = enqueueRegistered(q, 'B', request, recording, { captureId: 'cap-b', uploadId: 'u-b', totalParts: 1 });
    expect(q.schedule.dueFiles(Date.now(), 10, [], cards.waitingFiles()).map((f) => f.captureRow)).toEqual([other]);
    expect(q.totals().cardWait).toEqual({ cards: 1, recordings: 1, names: ['card'] });
  });

  it('remaps every path that waited for the card to where it is back, with the identity seen there, and ends the wait', () => {
    const [a, b] = fillQueue(q, 1);
    cards.add(card, b!);
    q.moveFile(a!, ['pending'], 'completed'); // finished while the wait was on: still moved with its card
    const moved = cards.remap(
      cards.list()[0]!,
      '/media/ana/X4_2',
      new Map([[b!, { dev: '7', ino: '8', ctimeNs: '9' }]]),
    );
    expect(moved.map((f) => [f.id, f.path, f.dev, f.ino, f.ctimeNs])).toEqual([
      [b, '/media/ana/X4_2/VID_0_2.insv', '7', '8', '9'],
    ]);
    expect(q.file(a!)!.path).toBe('/media/ana/X4_2/VID_0_1.insv');
    expect(cards.list()).toEqual([]);
  });
});
