import { useCallback, useDeferredValue, useEffect, useMemo, useState } from 'react';
import { shapeKind } from '../../../../shared/asset-measure.js';
import type { AssetCategoryView, AssetView } from '../../../../shared/ipc.js';
import { localDate } from '../../../../shared/when.js';
import { api, unwrap } from '../../api.js';
import { assetFigures } from './asset-figures.js';
import type { AssetLook } from './AssetDrawing.js';
import { AssetDrawing } from './AssetDrawing.js';
import { AssetLegend, AssetTable } from './AssetTables.js';
import { offlineSentence } from './calendar.js';
import { KEY_FRACTIONS, MUTED, fractionColour } from './palette.js';

/**
 * A structure's external assets in one category (progress-records-interface.md §4): drawn in SVG
 * by their `shape` (polylines, filled polygons, points as dots, other shapes through their points),
 * each coloured by how far it got, do-not-track ones muted; focus or hover shows an asset's stages
 * in each stage's own unit; a legend with, per stage, how many assets reached it and their share of
 * the category's quantity, and each stage's work done in its unit ("120 of 300 m"); and the same
 * data as a table, exportable as CSV, for keyboard and screen-reader users.
 */
export function AssetsView() {
  const [categories, setCategories] = useState<AssetCategoryView[]>([]);
  const [structures, setStructures] = useState<{ id: string; name: string }[]>([]);
  const [structure, setStructure] = useState('');
  const [categoryId, setCategoryId] = useState('');
  const [assets, setAssets] = useState<AssetView[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [focused, setFocused] = useState<AssetView | null>(null);
  /** When the drawing is the copy kept on this computer: the time the service gave it (ISO 8601). */
  const [offline, setOffline] = useState<string | null>(null);
  /** The same for the categories and structures listed (before anything is drawn). */
  const [listsOffline, setListsOffline] = useState<string | null>(null);

  useEffect(() => {
    unwrap(api['assets.categories']())
      .then((r) => {
        setCategories(r.categories);
        setStructures(r.structures);
        setListsOffline(r.offline ? r.asOf : null);
      })
      .catch((err: unknown) => setProblem((err as Error).message));
  }, []);
  useEffect(() => {
    if (!structure || !categoryId) return;
    setAssets(null);
    unwrap(api['assets.list']({ structure, category: categoryId }))
      .then((r) => {
        // The assets bench (scripts/bench-assets.ts) times the first draw from this mark.
        performance.mark('assets:answer');
        setAssets(r.assets);
        setOffline(r.offline ? r.asOf : null);
        setProblem(null);
      })
      .catch((err: unknown) => setProblem((err as Error).message));
  }, [structure, categoryId]);

  const category = categories.find((c) => c.id === categoryId);
  const f = useMemo(() => (assets && category ? assetFigures(category, assets) : null), [assets, category]);
  // §2 gives assets no name: each is called by its category's name and its place in the answer
  // ("Curtain Wall 3"); the id is shown only on hover (title), never as the name.
  const names = useMemo(
    () => new Map((assets ?? []).map((a, i) => [a._id, `${category?.name ?? 'Asset'} ${i + 1}`])),
    [assets, category],
  );
  const nameOf = useCallback((a: AssetView) => names.get(a._id) ?? a._id, [names]);
  // Each asset's colour (by how far it got, all stages together, on a sequential palette;
  // do-not-track muted) and short name, worked out once per answer: a hover then redraws only the
  // shapes it touches (docs/decisions/assets-drawing-at-scale.md).
  const look = useMemo(
    () =>
      new Map<string, AssetLook>(
        (assets ?? []).map((a) => {
          const fraction = f ? f.fraction(a) : 0;
          const reached = f?.reached(a)?.name ?? 'not started';
          return [
            a._id,
            {
              colour: a.doNotTrack ? MUTED : fractionColour(fraction),
              label: a.doNotTrack
                ? `${nameOf(a)}. Not tracked`
                : `${nameOf(a)}. ${Math.round(fraction * 100)}% of all stages, reached ${reached}`,
              unfinished: !a.doNotTrack && fraction < 1,
            },
          ];
        }),
      ),
    [assets, f, nameOf],
  );
  const describe = (a: AssetView) =>
    !f
      ? nameOf(a)
      : `${nameOf(a)}. ${f.shapeText(a)}. ${a.doNotTrack ? 'Not tracked. ' : ''}Reached: ${f.reached(a)?.name ?? 'not started'} (${Math.round(f.fraction(a) * 100)}% of all stages). ` +
        f.stages.map((s) => `${s.name} ${f.stageCell(a, s) === '—' ? '0%' : f.stageCell(a, s)}`).join(', ') +
        (a.snapshot ? `. Snapshot ${localDate(a.snapshot)}` : '');
  // The table (2,000 rows on a floor) is rendered after the drawing, in the background: the drawing
  // is on screen first and answers hover and keys while the rows are made.
  const table = useDeferredValue(useMemo(() => ({ assets, f, category, nameOf }), [assets, f, category, nameOf]));
  const kinds = useMemo(() => new Set((assets ?? []).map((a) => shapeKind(a.shape))), [assets]);

  return (
    <main className="records wide">
      <section className="panel" aria-label="Choose assets">
        <h2>Assets</h2>
        <div className="filters">
          <label className="inline">
            Structure
            <select value={structure} onChange={(e) => setStructure(e.target.value)}>
              <option value="">Choose…</option>
              {structures.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </label>
          <label className="inline">
            Category
            <select value={categoryId} onChange={(e) => setCategoryId(e.target.value)}>
              <option value="">Choose…</option>
              {categories.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </label>
        </div>
        {(offline ?? listsOffline) && (
          <p className="offline" role="status" data-testid="assets-as-of">
            {offlineSentence((offline ?? listsOffline)!)}
          </p>
        )}
        {problem && (
          <p className="error" role="alert">
            {problem}
          </p>
        )}
      </section>
      {assets && category && f && (
        <>
          <section className="panel drawing-layout" aria-label="Drawing">
            {assets.length === 0 ? (
              <p className="muted">No assets of {category.name} in this structure.</p>
            ) : (
              <AssetDrawing
                assets={assets}
                look={look}
                label={`${assets.length} ${category.name} assets of ${structures.find((s) => s.id === structure)?.name ?? 'the structure'}; the table below lists them`}
                focusedId={focused?._id ?? null}
                onFocus={setFocused}
              />
            )}
            <p className="asset-focus" data-testid="asset-focus" aria-live="polite">
              {focused ? describe(focused) : 'Hover or focus a line to see its stages.'}
            </p>
            <p className="colour-key" data-testid="colour-key">
              Line colour, share of all stages done:{' '}
              {KEY_FRACTIONS.map((f) => (
                <span key={f} className="key-step" data-fraction={f}>
                  <span className="swatch" style={{ background: fractionColour(f) }} /> {f * 100}%
                </span>
              ))}
              {f.untracked.length > 0 && (
                <span className="key-step">
                  <span className="swatch" style={{ background: MUTED }} /> not tracked (dashed)
                </span>
              )}
              {kinds.has('polygon') && (
                <span className="key-step">Outlines (polygons) are filled with their colour.</span>
              )}
              {kinds.has('point') && <span className="key-step">Points are drawn as dots.</span>}
              {kinds.has('other') && (
                <span className="key-step">Dotted: a shape this app does not know, drawn through its points.</span>
              )}
            </p>
            <AssetLegend category={category} f={f} />
          </section>
          {table.assets && table.f && table.category && (
            <AssetTable category={table.category} assets={table.assets} f={table.f} nameOf={table.nameOf} />
          )}
        </>
      )}
    </main>
  );
}
