import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { shapeKind } from '../../../../shared/asset-measure.js';
import type { AssetView } from '../../../../shared/ipc.js';
import { assetFigures } from './asset-figures.js';
import { useAssetLooks } from './asset-looks.js';
import { AssetDrawing } from './AssetDrawing.js';
import { AssetLegend } from './AssetLegend.js';
import { AssetPickers } from './AssetPickers.js';
import { AssetTable } from './AssetTable.js';
import { ColourKey } from './ColourKey.js';
import { followAssets } from '../../office-timers.js';
import { useApp } from '../../store.js';

/**
 * A structure's external assets in one category (progress-records-interface.md §4): drawn in SVG
 * by their `shape` (polylines, filled polygons, points as dots, other shapes through their points),
 * each coloured by how far it got, do-not-track ones muted; focus or hover shows an asset's stages
 * in each stage's own unit; a legend with, per stage, how many assets reached it and their share of
 * the category's quantity, and each stage's work done in its unit ("120 of 300 m"); and the same
 * data as a table, exportable as CSV, for keyboard and screen-reader users. Its reads and choices
 * are the store's assets slice (assets-slice.ts), open while the workspace shows.
 */
export function AssetsView() {
  useEffect(() => followAssets(useApp), []);
  const [focused, setFocused] = useState<AssetView | null>(null);
  const categoryId = useApp((s) => s.assetsCategory);
  const categories = useApp((s) => s.assetCategories);
  const structures = useApp((s) => s.assetStructures);
  const structure = useApp((s) => s.assetsStructure);
  const assets = useApp((s) => s.assets);
  const loading = useApp((s) => s.assetsLoading);

  const category = categories.find((c) => c.id === categoryId);
  const structureName = structures.find((s) => s.id === structure)?.name ?? 'the structure';
  const f = useMemo(() => (assets && category ? assetFigures(category, assets) : null), [assets, category]);
  const { nameOf, look, describe } = useAssetLooks(assets, category, f);
  // The table (2,000 rows on a floor) is rendered after the drawing, in the background: the drawing
  // is on screen first and answers hover and keys while the rows are made.
  const table = useDeferredValue(useMemo(() => ({ assets, f, category, nameOf }), [assets, f, category, nameOf]));
  const kinds = useMemo(() => new Set((assets ?? []).map((a) => shapeKind(a.shape))), [assets]);

  return (
    <main className="records wide">
      <AssetPickers />
      {loading && (
        // In the drawing's place from the moment of the choice, until the drawing replaces it.
        <section className="panel drawing-layout" aria-label="Drawing">
          <p className="muted assets-loading" role="status" data-testid="assets-loading">
            {`Loading the ${category ? `${category.name} ` : ''}assets of ${structureName}…`}
          </p>
        </section>
      )}
      {assets && category && f && (
        <>
          <section className="panel drawing-layout" aria-label="Drawing">
            {assets.length === 0 ? (
              <p className="muted">No assets of {category.name} in this structure.</p>
            ) : (
              <AssetDrawing
                assets={assets}
                look={look}
                label={`${assets.length} ${category.name} assets of ${structureName}; the table below lists them`}
                focusedId={focused?._id ?? null}
                onFocus={setFocused}
              />
            )}
            {/* Beside the drawing, in view with it even in a small window (820×560). */}
            <div className="drawing-side">
              <p className="asset-focus" data-testid="asset-focus" aria-live="polite">
                {focused ? describe(focused) : 'Hover or focus a line to see its stages.'}
              </p>
              <ColourKey untracked={f.untracked.length > 0} kinds={kinds} />
              <AssetLegend category={category} f={f} />
            </div>
          </section>
          {table.assets && table.f && table.category && (
            <AssetTable category={table.category} assets={table.assets} f={table.f} nameOf={table.nameOf} />
          )}
        </>
      )}
    </main>
  );
}
