import type { StateCreator } from 'zustand';
import { unpackAssets } from '../../shared/asset-pack.js';
import type { AssetCategoryView, AssetView } from '../../shared/ipc.js';
import { CANCELLED } from '../../shared/ipc.js';
import { api, unwrap } from './api.js';

/** A structure as the Assets view offers it: its id and friendly name. */
interface AssetStructure {
  id: string;
  name: string;
}

/**
 * The Assets workspace's slice of the one store (store.ts; progress-records-interface.md §4):
 * the categories and structures, read once each time the workspace opens, the structure and
 * category chosen, and the assets of that choice (null while read: `assetsLoading` says so).
 * Choosing another category or structure cancels the read under way (its callId, shared/ipc.ts
 * CallOptions), so its late answer never replaces the new one; closing the workspace cancels it
 * too. `assetsOffline` and `assetListsOffline` are the time (ISO 8601) the service gave the copy
 * kept on this computer, when the drawing or the lists come from it; `assetsProblem` the main
 * process's sentence when a read failed.
 *
 * The assets bench (scripts/bench-assets.ts) reads the performance marks set here:
 * `assets:asked` when the call leaves, `assets:answer` when its answer is in the page, and
 * `assets:unpacked` once its points are unpacked.
 */
export interface AssetsSlice {
  assetCategories: AssetCategoryView[];
  assetStructures: AssetStructure[];
  /** The chosen structure's id, '' for none. */
  assetsStructure: string;
  /** The chosen category's id, '' for none. */
  assetsCategory: string;
  /** The assets of the choice, unpacked; null while read or while nothing is chosen. */
  assets: AssetView[] | null;
  assetsLoading: boolean;
  assetsProblem: string | null;
  assetsOffline: string | null;
  assetListsOffline: string | null;
  /** Opens the workspace: nothing chosen, the categories and structures read. */
  openAssets(): void;
  /** Closes the workspace: the read under way cancelled, its state back to the start. */
  closeAssets(): void;
  /** Chooses a structure (by id, '' for none) and reads the assets of the choice. */
  chooseAssetStructure(id: string): void;
  /** Chooses a category (by id, '' for none) and reads the assets of the choice. */
  chooseAssetCategory(id: string): void;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

const startState = {
  assetCategories: [],
  assetStructures: [],
  assetsStructure: '',
  assetsCategory: '',
  assets: null,
  assetsLoading: false,
  assetsProblem: null,
  assetsOffline: null,
  assetListsOffline: null,
} satisfies Partial<AssetsSlice>;

/** The Assets workspace's slice over its own fields. */
export const assetsSlice: StateCreator<AssetsSlice, [], [], AssetsSlice> = (set, get) => {
  // As for the progress slice: an answer of a closed visit is dropped.
  let visit = 0;
  let open = false;
  /** The assets read under way: its call id, and whether it has answered. */
  let call: { id: string; settled: boolean } | null = null;

  /** Gives up the read under way, if any: its answer is no longer wanted, nor its request. */
  const giveUp = () => {
    if (call && !call.settled) void api.cancel(call.id);
    call = null;
  };
  const read = () => {
    giveUp();
    const { assetsStructure: structure, assetsCategory: category } = get();
    if (!open || !structure || !category) return set({ assets: null, assetsLoading: false });
    set({ assets: null, assetsLoading: true });
    const mine = { id: crypto.randomUUID(), settled: false };
    call = mine;
    performance.mark('assets:asked');
    unwrap(api['assets.list']({ structure, category }, { callId: mine.id }))
      .then((r) => {
        if (call !== mine) return;
        performance.mark('assets:answer');
        // Unpacked once, here (shared/asset-pack.ts; docs/decisions/0032-assets-answer-packed.md).
        const list: AssetView[] = unpackAssets(r.assets);
        performance.mark('assets:unpacked');
        set({ assets: list, assetsOffline: r.offline ? r.asOf : null, assetsProblem: null });
      })
      .catch((err: unknown) => {
        if (call === mine && messageOf(err) !== CANCELLED) set({ assetsProblem: messageOf(err) });
      })
      .finally(() => {
        mine.settled = true;
        if (call === mine) set({ assetsLoading: false });
      });
  };

  return {
    ...startState,
    openAssets() {
      giveUp();
      visit += 1;
      open = true;
      set(startState);
      const v = visit;
      unwrap(api['assets.categories']())
        .then((r) => {
          if (!open || v !== visit) return;
          set({
            assetCategories: r.categories,
            assetStructures: r.structures,
            assetListsOffline: r.offline ? r.asOf : null,
          });
        })
        .catch((err: unknown) => {
          if (open && v === visit) set({ assetsProblem: messageOf(err) });
        });
    },
    closeAssets() {
      giveUp();
      visit += 1;
      open = false;
      set(startState);
    },
    chooseAssetStructure(id) {
      if (id === get().assetsStructure) return;
      set({ assetsStructure: id });
      read();
    },
    chooseAssetCategory(id) {
      if (id === get().assetsCategory) return;
      set({ assetsCategory: id });
      read();
    },
  };
};
