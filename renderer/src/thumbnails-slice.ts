import type { StateCreator } from 'zustand';

/**
 * A recording's thumbnail as the window shows it: `loading` until the service answers, then the
 * cached first frame (a data URL) or the neutral icon's reason.
 */
export type Thumb = { kind: 'loading' } | { kind: 'image'; dataUrl: string } | { kind: 'none'; reason: string };

/**
 * The recordings' thumbnails, the one store's slice of them (store.ts): by path, each asked for
 * once per session (thumbnail-frames.ts). The service keeps the cache (main/service/thumbnail-maker.ts).
 */
export interface ThumbnailsSlice {
  thumbs: Record<string, Thumb>;
  /** Puts one recording's thumbnail in place; the other entries keep their objects. */
  setThumb(path: string, thumb: Thumb): void;
  /** Puts several in place in one store update (thumbnail-frames.ts batches what comes in together). */
  setThumbs(batch: ReadonlyMap<string, Thumb>): void;
}

/** The thumbnails' slice: its own fields only. */
export const thumbnailsSlice: StateCreator<ThumbnailsSlice, [], [], ThumbnailsSlice> = (set, get) => ({
  thumbs: {},
  setThumb(path, thumb) {
    set({ thumbs: { ...get().thumbs, [path]: thumb } });
  },
  setThumbs(batch) {
    if (batch.size) set({ thumbs: { ...get().thumbs, ...Object.fromEntries(batch) } });
  },
});
