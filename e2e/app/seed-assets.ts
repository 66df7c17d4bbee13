import type { AppHarness } from './harness.js';

/**
 * The local service's seeded asset records as the browser tests read and extend them
 * (progress-records-interface.md §2: AssetCategory, ExternalAsset): the service keeps them
 * untyped, these are the fields the tests use.
 */

/** A stage of an asset category, with its own unit (`uom`, e.g. ea, m, m2, lf, m3). */
export interface SeedStage {
  _id: string;
  name: string;
  uom: string;
  measurement: string;
}

/** An asset category: its unit, its height (for areas from polylines) and its stages. */
interface SeedCategory {
  id: string;
  name: string;
  uom: string;
  height: number;
  stages: SeedStage[];
}

/** An asset: its shape (polyline, polygon, point), its points in plan units, and per stage the percentage done. */
export interface SeedAsset {
  _id: string;
  structure: string;
  category: string;
  shape: string;
  doNotTrack: boolean;
  points: { x: number; y: number }[];
  stages: { _id: string; percentage: number; date: string }[];
}

/**
 * The first structure of the project (as the app's settings list it), the category named
 * `name`, and that structure's assets in it, as the local service holds them; `all` is the
 * service's own list of every asset (a test may change it in place).
 */
export function seededAssets(h: AppHarness, name: string) {
  const structure = h.settings.view().structures[0]!;
  const category = (h.svc.store.state.assetCategories as unknown as SeedCategory[]).find((c) => c.name === name)!;
  const all = h.svc.store.state.assets as unknown as SeedAsset[];
  const held = all.filter((a) => a.structure === structure.id && a.category === category.id);
  return { structure, category, held, all };
}

/**
 * The points of shape `i` of a large floor: on a 50-wide grid of cells 40 × 30 plan units, a
 * zigzag of 100 points 0.3 units apart, 1 unit high.
 */
export const floorPolyline = (i: number): { x: number; y: number }[] =>
  Array.from({ length: 100 }, (_, k) => ({
    x: (i % 50) * 40 + k * 0.3,
    y: Math.floor(i / 50) * 30 + (k % 2),
  }));
