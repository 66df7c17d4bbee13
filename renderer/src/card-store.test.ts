import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { ImportView } from '../../shared/ipc.js';

// The card store against a stand-in window.api: which copies it hands to the registration step
// (files.inspect) is what is checked.
const inspected: string[][] = [];
let listAnswer: { cards: never[]; imports: ImportView[]; uploadFromCard: boolean } = { cards: [], imports: [], uploadFromCard: false };
const listeners = new Map<string, (p: unknown) => void>();
const ok = <T>(value: T) => Promise.resolve({ ok: true as const, value });
const fakeApi = {
  'files.inspect': (paths: string[]) => {
    inspected.push(paths);
    return ok({ captures: [], refused: [] });
  },
  'captures.lastPlacement': () => ok(null),
  'cards.list': () => ok(listAnswer),
  on: (event: string, l: (p: unknown) => void) => {
    listeners.set(event, l);
    return () => listeners.delete(event);
  },
};

let useCards: typeof import('./card-store.js').useCards;
beforeAll(async () => {
  vi.stubGlobal('window', { api: fakeApi });
  ({ useCards } = await import('./card-store.js'));
});

const view = (id: number, copies: string[], phase: ImportView['phase'] = 'copying'): ImportView => ({
  id, card: `/media/u/CARD${id}`, cardName: `CARD${id}`, destination: `/lib/CARD${id}`, phase, startedAt: '2026-11-25T10:00:00Z',
  bytesDone: 0, bytesTotal: 100, files: [], verifiedCopies: copies, safeToRemove: phase === 'done', error: null, mhlPath: null,
});
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('card store', () => {
  it('hands each verified copy to the registration step once, in the order the recordings verified, from the events it follows itself', async () => {
    listeners.get('capture:event.import')!(view(1, ['/lib/a_00.insv', '/lib/a_10.insv']));
    listeners.get('capture:event.import')!(view(1, ['/lib/a_00.insv', '/lib/a_10.insv']));
    listeners.get('capture:event.import')!(view(1, ['/lib/a_00.insv', '/lib/a_10.insv', '/lib/b_00.insv', '/lib/b_10.insv'], 'done'));
    await settle();
    await settle();
    expect(inspected).toEqual([['/lib/a_00.insv', '/lib/a_10.insv'], ['/lib/b_00.insv', '/lib/b_10.insv']]);
    expect(useCards.getState().imports.map((i) => i.phase)).toEqual(['done']);
  });

  it('does not hand again what a list read after the events says, nor let an older view replace a newer one', async () => {
    inspected.length = 0;
    listAnswer = { cards: [], imports: [view(1, ['/lib/a_00.insv', '/lib/a_10.insv']), view(2, ['/lib/c_00.insv'], 'done')], uploadFromCard: false };
    await useCards.getState().load();
    expect(useCards.getState().imports.map((i) => [i.id, i.phase, i.verifiedCopies.length])).toEqual([[1, 'done', 4], [2, 'done', 1]]);
    // Import 2 finished before this window listened: its copy was the other window's to hand.
    listeners.get('capture:event.import')!(view(2, ['/lib/c_00.insv'], 'done'));
    await settle();
    expect(inspected).toEqual([]);
  });

  it("with upload straight from the card on, hands a card's root to the registration step once, and offers it again only after it was removed (issue 19 #5)", async () => {
    inspected.length = 0;
    const card = { root: '/media/u/X4', name: 'X4', recordings: 2, bytes: 100 };
    listeners.get('capture:event.cards')!({ cards: [card], uploadFromCard: true });
    expect(useCards.getState().uploadFromCard).toBe(true);
    await useCards.getState().uploadStraight('/media/u/X4');
    await useCards.getState().uploadStraight('/media/u/X4');
    expect(inspected).toEqual([['/media/u/X4']]);
    expect(useCards.getState().fromCard).toEqual(['/media/u/X4']);
    // Still mounted: still handed. Removed: forgotten, so the card put back is offered again.
    listeners.get('capture:event.cards')!({ cards: [card], uploadFromCard: true });
    expect(useCards.getState().fromCard).toEqual(['/media/u/X4']);
    listeners.get('capture:event.cards')!({ cards: [], uploadFromCard: true });
    expect(useCards.getState().fromCard).toEqual([]);
  });
});
