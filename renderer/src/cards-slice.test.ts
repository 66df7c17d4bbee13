import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { ImportView } from '../../shared/ipc.js';

// The card offer's slice of the store against a stand-in window.api: which copies it hands to the registration step
// (files.inspect) is what is checked.
const inspected: string[][] = [];
let listAnswer: { cards: never[]; imports: ImportView[]; uploadFromCard: boolean } = {
  cards: [],
  imports: [],
  uploadFromCard: false,
};
const listeners = new Map<string, (p: unknown) => void>();
const ok = <T>(value: T) => Promise.resolve({ ok: true as const, value });
const fakeApi = {
  'files.inspect': (paths: string[]) => {
    inspected.push(paths);
    return ok({ captures: [], refused: [] });
  },
  'captures.lastPlacement': () => ok(null),
  'cards.list': () => ok(listAnswer),
  'cards.import': ({ root }: { root: string }) => ok(view(9, [], 'copying', root)),
  on: (event: string, l: (p: unknown) => void) => {
    listeners.set(event, l);
    return () => listeners.delete(event);
  },
};

let useStore: typeof import('./store.js').useApp;
let copyStateOf: typeof import('./cards-slice.js').copyStateOf;
beforeAll(async () => {
  vi.stubGlobal('window', { api: fakeApi });
  ({ useApp: useStore } = await import('./store.js'));
  const slice = await import('./cards-slice.js');
  copyStateOf = slice.copyStateOf;
  // As the window does for its whole life (App).
  slice.followCardEvents(useStore.getState);
});

const view = (
  id: number,
  copies: string[],
  phase: ImportView['phase'] = 'copying',
  card = `/media/u/CARD${id}`,
): ImportView => ({
  id,
  card,
  cardName: `CARD${id}`,
  destination: `/lib/CARD${id}`,
  phase,
  startedAt: '2026-11-25T10:00:00Z',
  bytesDone: 0,
  bytesTotal: 100,
  bytesPerSecond: 0,
  secondsLeft: null,
  files: [],
  verifiedCopies: copies,
  safeToRemove: phase === 'done',
  error: null,
  mhlPath: null,
  reportPath: null,
});
const settle = () => new Promise((r) => setTimeout(r, 0));

type ImportFile = ImportView['files'][number];

/** The files of an import from the card at `card` (10 bytes each, under DCIM/Camera01), named by the state each is in. */
const filesByState = (card: string, names: Partial<Record<ImportFile['state'], string[]>>): ImportFile[] =>
  Object.entries(names).flatMap(([state, files]) =>
    files.map((name) => ({
      source: `${card}/DCIM/Camera01/${name}`,
      name,
      size: 10,
      bytesDone: 0,
      state: state as ImportFile['state'],
      error: null,
    })),
  );

/** The files of an import from `card` an earlier import had copied (state `known`), named by what became of them. */
const knownByAlready = (card: string, names: Record<'uploaded' | 'queued' | 'copied', string[]>): ImportFile[] =>
  (Object.keys(names) as ('uploaded' | 'queued' | 'copied')[]).flatMap((already) =>
    filesByState(card, { known: names[already] }).map((f) => ({ ...f, bytesDone: 10, already })),
  );

describe('the card offer slice', () => {
  it("hands a card's recordings to the registration step at the card's paths as soon as Import starts, and none of its copies as they verify", async () => {
    await useStore.getState().startImport('/media/u/X4');
    listeners.get('capture:event.import')!(view(9, ['/lib/a_00.insv', '/lib/a_10.insv'], 'copying', '/media/u/X4'));
    listeners.get('capture:event.import')!(
      view(9, ['/lib/a_00.insv', '/lib/a_10.insv', '/lib/b_00.insv', '/lib/b_10.insv'], 'done', '/media/u/X4'),
    );
    await settle();
    await settle();
    // The copies are the same recordings: handed again they would be placed twice.
    expect(inspected).toEqual([['/media/u/X4']]);
    expect(useStore.getState().imports.map((i) => [i.id, i.phase])).toEqual([[9, 'done']]);
  });

  it('does not let an older view replace a newer one, nor hand anything on a list read after the events', async () => {
    inspected.length = 0;
    listAnswer = {
      cards: [],
      imports: [view(9, ['/lib/a_00.insv'], 'copying', '/media/u/X4'), view(2, ['/lib/c_00.insv'], 'done')],
      uploadFromCard: false,
    };
    await useStore.getState().loadCards();
    expect(useStore.getState().imports.map((i) => [i.id, i.phase])).toEqual([
      [9, 'done'],
      [2, 'done'],
    ]);
    listeners.get('capture:event.import')!(view(2, ['/lib/c_00.insv'], 'done'));
    await settle();
    expect(inspected).toEqual([]);
  });

  it('says of a recording on a card being imported whether its copy is made yet: Copying, Verified, Not verified; nothing for other files', () => {
    const v = view(3, [], 'copying', '/media/u/X4');
    v.files = filesByState(v.card, {
      verified: ['a_00.insv', 'a_10.insv', 'b_00.insv'],
      copying: ['b_10.insv'],
      failed: ['c_00.insv'],
    });
    const on = (...names: string[]) => names.map((n) => `/media/u/X4/DCIM/Camera01/${n}`);
    expect(copyStateOf([v], on('a_00.insv', 'a_10.insv'))).toBe('verified');
    expect(copyStateOf([v], on('b_00.insv', 'b_10.insv'))).toBe('copying');
    expect(copyStateOf([v], on('c_00.insv'))).toBe('failed');
    // Not listed yet (the card still being read): its import works on it; once done, it was not copied.
    expect(copyStateOf([v], on('d_00.insv'))).toBe('copying');
    expect(copyStateOf([{ ...v, phase: 'done' }], on('d_00.insv'))).toBe('failed');
    expect(copyStateOf([v], ['/media/u/X40/DCIM/Camera01/a_00.insv'])).toBeNull();
    expect(copyStateOf([v], ['/home/ana/walk.mp4'])).toBeNull();
  });

  it('says of a recording an earlier import copied (found by content by the service) Already uploaded, Already queued or Already imported, never Verified', () => {
    const v = view(4, [], 'done', '/media/u/X4_1');
    v.files = knownByAlready(v.card, {
      uploaded: ['a_00.insv', 'a_10.insv'],
      queued: ['b_00.insv', 'b_10.insv'],
      copied: ['c_00.insv', 'c_10.insv'],
    });
    const on = (...names: string[]) => names.map((n) => `/media/u/X4_1/DCIM/Camera01/${n}`);
    expect(copyStateOf([v], on('a_00.insv', 'a_10.insv'))).toBe('uploaded');
    expect(copyStateOf([v], on('b_00.insv', 'b_10.insv'))).toBe('queued');
    expect(copyStateOf([v], on('c_00.insv', 'c_10.insv'))).toBe('imported');
  });

  it("with upload straight from the card on, hands a card's root to the registration step once, and offers it again only after it was removed", async () => {
    inspected.length = 0;
    const card = { root: '/media/u/X4', name: 'X4', recordings: 2, bytes: 100 };
    listeners.get('capture:event.cards')!({ cards: [card], uploadFromCard: true });
    expect(useStore.getState().uploadFromCard).toBe(true);
    await useStore.getState().uploadStraight('/media/u/X4');
    await useStore.getState().uploadStraight('/media/u/X4');
    expect(inspected).toEqual([['/media/u/X4']]);
    expect(useStore.getState().fromCard).toEqual(['/media/u/X4']);
    // Still mounted: still handed. Removed: forgotten, so the card put back is offered again.
    listeners.get('capture:event.cards')!({ cards: [card], uploadFromCard: true });
    expect(useStore.getState().fromCard).toEqual(['/media/u/X4']);
    listeners.get('capture:event.cards')!({ cards: [], uploadFromCard: true });
    expect(useStore.getState().fromCard).toEqual([]);
  });
});
