import { create } from 'zustand';
import type { DetectedCardView, ImportView } from '../../shared/ipc.js';
import { api, unwrap } from './api.js';
import { useDrafts } from './drafts-store.js';
import { useApp } from './store.js';

/**
 * The card offer's state (issue 19 #2, #3), a store of its own beside the queue's and the
 * registration step's: the Insta360 cards mounted now and this session's imports, as the upload
 * service's events say them. The recordings of an import are handed to the registration step as
 * soon as each verifies, as if dropped from the library folder, so they are placed and uploaded
 * from the copies with the panel everyone knows. With "Upload straight from the card" on (issue 19
 * #5) a card is handed to the registration step whole instead, as a drop of its root would be.
 */
export interface CardState {
  cards: DetectedCardView[];
  imports: ImportView[];
  /** Whether cards are offered for upload straight from the card (the library setting) rather than Import. */
  uploadFromCard: boolean;
  /** The roots of the cards mounted now whose recordings were handed to the registration step from the card: not offered again. */
  fromCard: readonly string[];
  /** Per import id, how many of its verified copies were handed to the registration step. */
  handed: Readonly<Record<number, number>>;
  /** Reads the cards and imports from the service (at start, and after a reload of the window). */
  load(): Promise<void>;
  /** The cards mounted now and how they are offered; a card handed from the card and since removed may be offered again. */
  applyCards(cards: DetectedCardView[], uploadFromCard: boolean): void;
  /** Puts an import's new view in place and hands its newly verified copies to the registration step. */
  applyImport(view: ImportView): void;
  /** Starts importing a card offered now; the service's refusal becomes a message. */
  startImport(root: string): Promise<void>;
  dismiss(id: number): Promise<void>;
  /** Hands a card's recordings to the registration step at the card's own paths (no copy), as a drop of its root would. */
  uploadStraight(root: string): Promise<void>;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
// One inspection at a time, in the order the recordings verified.
let handing: Promise<void> = Promise.resolve();

/** The card offer's store. */
export const useCards = create<CardState>()((set, get) => ({
  cards: [],
  imports: [],
  uploadFromCard: false,
  fromCard: [],
  handed: {},
  async load() {
    try {
      const { cards, imports, uploadFromCard } = await unwrap(api['cards.list']());
      // An import's events may have overtaken this answer: the view already here is the newer.
      const mine = new Map(get().imports.map((i) => [i.id, i]));
      const merged = imports.map((i) => mine.get(i.id) ?? i);
      // Copies verified before this window loaded were handed to the window that saw them;
      // the library folder can be dropped to list them again.
      const handed = Object.fromEntries(merged.map((i) => [i.id, Math.max(get().handed[i.id] ?? 0, i.verifiedCopies.length)]));
      set({ imports: merged, handed });
      get().applyCards(cards, uploadFromCard);
    } catch (err) {
      useApp.getState().notify('warning', `The cards mounted could not be read: ${messageOf(err)}`);
    }
  },
  applyCards(cards, uploadFromCard) {
    const mounted = new Set(cards.map((c) => c.root));
    set({ cards, uploadFromCard, fromCard: get().fromCard.filter((r) => mounted.has(r)) });
  },
  applyImport(view) {
    const known = get().imports.some((i) => i.id === view.id);
    const imports = known ? get().imports.map((i) => (i.id === view.id ? view : i)) : [...get().imports, view];
    const from = get().handed[view.id] ?? 0;
    const fresh = view.verifiedCopies.slice(from);
    set({ imports, handed: fresh.length ? { ...get().handed, [view.id]: view.verifiedCopies.length } : get().handed });
    if (fresh.length) handing = handing.then(() => useDrafts.getState().inspect(fresh));
  },
  async startImport(root) {
    try {
      const view = await unwrap(api['cards.import']({ root }));
      // The first events may have come before the answer: the newer view wins.
      if (!get().imports.some((i) => i.id === view.id)) get().applyImport(view);
    } catch (err) {
      useApp.getState().notify('error', messageOf(err));
    }
  },
  async dismiss(id) {
    await unwrap(api['cards.dismiss']({ id })).catch(() => undefined);
    set({ imports: get().imports.filter((i) => i.id !== id) });
  },
  async uploadStraight(root) {
    if (get().fromCard.includes(root)) return;
    set({ fromCard: [...get().fromCard, root] });
    handing = handing.then(() => useDrafts.getState().inspect([root]));
    await handing;
  },
}));

// Followed for the window's whole life, not only while the Upload tab shows the offer: an import
// goes on while Settings is open, and its verified copies must still reach the registration step.
api.on('capture:event.cards', (p) => useCards.getState().applyCards(p.cards, p.uploadFromCard));
api.on('capture:event.import', (v) => useCards.getState().applyImport(v));
