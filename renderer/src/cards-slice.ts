import type { StateCreator } from 'zustand';
import type { DetectedCardView, ImportFileView, ImportView } from '../../shared/ipc.js';
import { api, unwrap } from './api.js';
import type { DraftsSlice } from './drafts-slice.js';
import type { NoticeSlice } from './notices-slice.js';

/**
 * The card offer's slice of the one store (store.ts): the Insta360 cards mounted now and this session's imports, as the upload
 * service's events say them. When Import starts, the card's recordings are handed to the
 * registration step at once, at the card's own paths, so a person can place them
 * all in the first minute and walk away: each row says whether its copy is verified yet
 * (copyStateOf), and the upload service holds what is placed before its copy verifies and
 * uploads it from the copy (main/queue/copy-holds.ts). With "Upload straight from the card" on
 * a card is handed the same way, with no copy.
 */
export interface CardsSlice {
  cards: DetectedCardView[];
  imports: ImportView[];
  /** Whether cards are offered for upload straight from the card (the library setting) rather than Import. */
  uploadFromCard: boolean;
  /** The roots of the cards mounted now whose recordings were handed to the registration step from the card: not offered again. */
  fromCard: readonly string[];
  /** Reads the cards and imports from the service (at start, and after a reload of the window). */
  loadCards(): Promise<void>;
  /** The cards mounted now and how they are offered; a card handed from the card and since removed may be offered again. */
  applyCards(cards: DetectedCardView[], uploadFromCard: boolean): void;
  /** Puts an import's new view in place (its rows' copy states follow from it). */
  applyImport(view: ImportView): void;
  /** Starts importing a card offered now and hands its recordings to the registration step at once; the service's refusal becomes a message. */
  startImport(root: string): Promise<void>;
  /** Takes a finished import off the list. */
  dismissImport(id: number): Promise<void>;
  /**
   * Stops an import copying now (cards.stop): its last view, by `capture:event.import`, says what
   * was kept and what was not copied; a refusal (it had just finished) is a notice.
   */
  stopImport(id: number): Promise<void>;
  /** Ejects the card of an import said safe to remove; answers the sentence saying whether it was ejected (or why not), and whether it was. */
  ejectImport(id: number): Promise<{ ejected: boolean; message: string }>;
  /** Hands a card's recordings to the registration step at the card's own paths (no copy), as a drop of its root would. */
  uploadStraight(root: string): Promise<void>;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
// One inspection at a time, in the order the recordings verified.
let handing: Promise<void> = Promise.resolve();

/**
 * The card offer's slice over the narrowest state it needs: its own fields, the registration step
 * it hands recordings to, and the notices it raises (named here, not the store's AppState, so
 * store.ts imports this file and never the other way round).
 */
export const cardsSlice: StateCreator<CardsSlice & DraftsSlice & NoticeSlice, [], [], CardsSlice> = (set, get) => ({
  cards: [],
  imports: [],
  uploadFromCard: false,
  fromCard: [],
  async loadCards() {
    try {
      const { cards, imports, uploadFromCard } = await unwrap(api['cards.list']());
      // An import's events may have overtaken this answer: the view already here is the newer.
      const mine = new Map(get().imports.map((i) => [i.id, i]));
      // A card imported before this window loaded was handed to the window that started it; the
      // library folder can be dropped to list its copies again.
      set({ imports: imports.map((i) => mine.get(i.id) ?? i) });
      get().applyCards(cards, uploadFromCard);
    } catch (err) {
      get().notify('warning', `The cards mounted could not be read: ${messageOf(err)}`);
    }
  },
  applyCards(cards, uploadFromCard) {
    const mounted = new Set(cards.map((c) => c.root));
    set({ cards, uploadFromCard, fromCard: get().fromCard.filter((r) => mounted.has(r)) });
  },
  applyImport(view) {
    const known = get().imports.some((i) => i.id === view.id);
    set({ imports: known ? get().imports.map((i) => (i.id === view.id ? view : i)) : [...get().imports, view] });
  },
  async startImport(root) {
    try {
      const view = await unwrap(api['cards.import']({ root }));
      // The first events may have come before the answer: the newer view wins.
      if (!get().imports.some((i) => i.id === view.id)) get().applyImport(view);
    } catch (err) {
      get().notify('error', messageOf(err));
      return;
    }
    // Placed while it copies: the service holds each recording placed before its copy
    // verifies and uploads it from the copy; the copies are never handed again (one capture each).
    handing = handing.then(() => get().inspect([root]));
    await handing;
  },
  async stopImport(id) {
    await unwrap(api['cards.stop']({ id })).catch((err: unknown) => get().notify('info', messageOf(err)));
  },
  async dismissImport(id) {
    await unwrap(api['cards.dismiss']({ id })).catch(() => undefined);
    set({ imports: get().imports.filter((i) => i.id !== id) });
  },
  async ejectImport(id) {
    try {
      return await unwrap(api['cards.eject']({ id }));
    } catch (err) {
      return { ejected: false, message: messageOf(err) };
    }
  },
  async uploadStraight(root) {
    if (get().fromCard.includes(root)) return;
    set({ fromCard: [...get().fromCard, root] });
    handing = handing.then(() => get().inspect([root]));
    await handing;
  },
});

/**
 * Follows the service's card and import events into the slice whose state `get` reads; answers
 * the function that stops. Called for the window's whole life (App), not only while the Upload tab
 * shows the offer: an import goes on while Settings is open, and its verified copies must still
 * reach the registration step.
 */
export function followCardEvents(get: () => CardsSlice): () => void {
  const offCards = api.on('capture:event.cards', (p) => get().applyCards(p.cards, p.uploadFromCard));
  const offImport = api.on('capture:event.import', (v) => get().applyImport(v));
  return () => {
    offCards();
    offImport();
  };
}

/** A path's last part (either separator). */
const nameOf = (path: string) => path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);

/**
 * Each import view's files by name, made once per view: every row of the registration table asks
 * copyStateOf on each store update, and a card of 100 recordings has 200 files to search.
 */
const filesByName = new WeakMap<ImportView, Map<string, ImportFileView[]>>();

/** The files of import `v` named `name` (several only when two folders of the card hold the same name). */
function filesNamed(v: ImportView, name: string): readonly ImportFileView[] {
  let index = filesByName.get(v);
  if (!index) {
    index = new Map();
    for (const f of v.files) {
      const n = nameOf(f.source);
      const same = index.get(n);
      if (same) same.push(f);
      else index.set(n, [f]);
    }
    filesByName.set(v, index);
  }
  return index.get(name) ?? [];
}

/**
 * Where a recording of a card being imported stands: its copy being made, verified, or not
 * verified (it then uploads from the card); or, copied by an earlier import of the card (found by
 * content, main/offload/known-copies.ts), `uploaded`, `queued` (waiting to upload) or `imported`
 * (its copy there, not placed yet).
 */
export type CopyState = 'copying' | 'verified' | 'failed' | 'uploaded' | 'queued' | 'imported';

/**
 * The copy state of a recording whose files are `paths` (on a card), from this session's imports
 * `failed` when a file's copy failed verification, `verified` when every file's
 * did, `copying` while the import still works on one; null when no import holds them (a drop, or
 * Upload from the card). Files are matched by their place under the card's root (the import's
 * own paths are the card's resolved paths).
 */
export function copyStateOf(imports: readonly ImportView[], paths: readonly string[]): CopyState | null {
  // The newest import first: a card imported twice in a session is said as its latest import.
  for (let i = imports.length - 1; i >= 0; i--) {
    const v = imports[i]!;
    const under = (p: string) => p.startsWith(v.card) && (p[v.card.length] === '/' || p[v.card.length] === '\\');
    if (paths.length === 0 || !paths.every(under)) continue;
    const rows = paths.map((p) => filesNamed(v, nameOf(p)).find((f) => f.source.endsWith(p.slice(v.card.length))));
    // Copied before: the service decided it by content, the row only says so.
    if (rows.length && rows.every((r) => r?.state === 'known')) {
      const already = rows.map((r) => r!.already ?? 'copied');
      return already.every((a) => a === 'uploaded')
        ? 'uploaded'
        : already.every((a) => a !== 'copied')
          ? 'queued'
          : 'imported';
    }
    if (rows.some((r) => r?.state === 'failed')) return 'failed';
    if (rows.every((r) => r?.state === 'verified')) return 'verified';
    // Not listed yet (the card is still being read) or not finished: its import works on it.
    return v.phase === 'copying' ? 'copying' : 'failed';
  }
  return null;
}
