import { useEffect, useMemo, useState } from 'react';
import { categoryMeasure, polylineLength, progressFraction, reachedStage, stageTotals } from '../../../../shared/asset-stages.js';
import type { CategoryMeasure } from '../../../../shared/asset-stages.js';
import type { AssetCategoryView, AssetView } from '../../../../shared/ipc.js';
import { api, unwrap } from '../../api.js';
import { AssetDrawing } from './AssetDrawing.js';
import { offlineSentence } from './calendar.js';
import { KEY_FRACTIONS, fractionColour } from './palette.js';

const MUTED = '#9aa3ad';

/**
 * A structure's external assets in one category (progress-records-interface.md §4): polylines
 * drawn in SVG, each coloured by the stage it has reached (stages in sequence), do-not-track ones
 * muted; focus or hover shows an asset's stages; a legend with, per stage, how many assets reached
 * it and their share of the category's length; and the same data as a table, exportable as CSV,
 * for keyboard and screen-reader users.
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
        setAssets(r.assets);
        setOffline(r.offline ? r.asOf : null);
        setProblem(null);
      })
      .catch((err: unknown) => setProblem((err as Error).message));
  }, [structure, categoryId]);

  const category = categories.find((c) => c.id === categoryId);
  const stages = useMemo(() => [...(category?.stages ?? [])].sort((a, b) => a.sequence - b.sequence), [category]);
  const measure = category ? categoryMeasure(category.uom, category.height) : undefined;
  const totals = useMemo(() => (assets && category ? stageTotals(stages, assets) : []), [assets, category, stages]);
  const untracked = (assets ?? []).filter((a) => a.doNotTrack);
  // §2 gives assets no name: each is called by its category's name and its place in the answer
  // ("Curtain Wall 3"); the id is shown only on hover (title), never as the name.
  const names = useMemo(() => new Map((assets ?? []).map((a, i) => [a._id, `${category?.name ?? 'Asset'} ${i + 1}`])), [assets, category]);
  const nameOf = (a: AssetView) => names.get(a._id) ?? a._id;
  // By how far it got (all stages together), on a sequential palette; do-not-track muted.
  const colour = (a: AssetView) => (a.doNotTrack ? MUTED : fractionColour(progressFraction(stages, a)));
  const describe = (a: AssetView) =>
    `${nameOf(a)}. ${a.doNotTrack ? 'Not tracked. ' : ''}Reached: ${reachedStage(stages, a)?.name ?? 'not started'} (${Math.round(progressFraction(stages, a) * 100)}% of all stages). ` +
    stages
      .map((s) => {
        const st = a.stages.find((x) => x._id === s._id);
        return `${s.name} ${st?.percentage ?? 0}%${st?.date && st.percentage > 0 ? ` on ${st.date.slice(0, 10)}` : ''}`;
      })
      .join(', ') +
    (a.snapshot ? `. Snapshot ${a.snapshot.slice(0, 10)}` : '');

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
      {assets && category && (
        <>
          <section className="panel drawing-layout" aria-label="Drawing">
            {assets.length === 0 ? (
              <p className="muted">No assets of {category.name} in this structure.</p>
            ) : (
              <AssetDrawing
                assets={assets}
                colour={colour}
                describe={describe}
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
              {untracked.length > 0 && (
                <span className="key-step">
                  <span className="swatch" style={{ background: MUTED }} /> not tracked (dashed)
                </span>
              )}
            </p>
            <table className="legend" data-testid="asset-legend">
              <caption>
                Stages of {category.name}, in sequence ({measureNote(measure!, category.height)})
              </caption>
              <thead>
                <tr>
                  <th>Stage</th>
                  <th>Assets</th>
                  <th>{measure!.kind === 'area' ? 'Area' : 'Length'}</th>
                  <th>Share</th>
                </tr>
              </thead>
              <tbody>
                {totals.map((t) => (
                  <tr key={t.stage?._id ?? 'none'}>
                    <td>{t.stage?.name ?? 'Not started'}</td>
                    <td>{t.assets}</td>
                    <td>
                      {(t.length * measure!.factor).toFixed(1)} {measure!.unit}
                    </td>
                    <td>{(t.share * 100).toFixed(1)}%</td>
                  </tr>
                ))}
                {untracked.length > 0 && (
                  // Every state drawn is in the legend: do-not-track lines are drawn muted, outside the figures.
                  <tr key="not-tracked" data-testid="legend-not-tracked">
                    <td>
                      <span className="swatch" style={{ background: MUTED }} /> Not tracked
                    </td>
                    <td>{untracked.length}</td>
                    <td>
                      {(untracked.reduce((n, a) => n + polylineLength(a.points), 0) * measure!.factor).toFixed(1)} {measure!.unit}
                    </td>
                    <td>not counted</td>
                  </tr>
                )}
              </tbody>
            </table>
          </section>
          <section className="panel" aria-label="Assets as a table">
            <h3>Assets</h3>
            <button onClick={() => downloadCsv(category, stages, assets, nameOf)}>Export CSV</button>
            <div className="table-scroll" tabIndex={0} role="region" aria-label={`${category.name} assets, one row each`}>
              <table className="asset-table" data-testid="asset-table">
                <thead>
                  <tr>
                    <th>Asset</th>
                    <th>Reached</th>
                    <th>
                      {measure!.kind === 'area' ? 'Area' : 'Length'} ({measure!.unit})
                    </th>
                    {stages.map((s) => (
                      <th key={s._id}>{s.name}</th>
                    ))}
                    <th>Snapshot</th>
                  </tr>
                </thead>
                <tbody>
                  {assets.map((a) => (
                    <tr key={a._id}>
                      <td title={`Asset id ${a._id}`} data-testid="asset-name">
                        {nameOf(a)}
                        {a.doNotTrack ? ' (not tracked)' : ''}
                      </td>
                      <td>{reachedStage(stages, a)?.name ?? 'Not started'}</td>
                      <td>{(polylineLength(a.points) * measure!.factor).toFixed(1)}</td>
                      {stages.map((s) => {
                        const st = a.stages.find((x) => x._id === s._id);
                        return <td key={s._id}>{st ? `${st.percentage}%${st.date ? ` (${st.date.slice(0, 10)})` : ''}` : '—'}</td>;
                      })}
                      <td>{a.snapshot?.slice(0, 10) ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        </>
      )}
    </main>
  );
}

/** The table as a CSV file download (RFC 4180 quoting): each asset by name, its id in a column of its own. */
function downloadCsv(category: AssetCategoryView, stages: AssetCategoryView['stages'], assets: AssetView[], nameOf: (a: AssetView) => string): void {
  const q = (v: string | number) => `"${String(v).replaceAll('"', '""')}"`;
  const measure = categoryMeasure(category.uom, category.height);
  const head = ['asset', 'id', 'reached', `${measure.kind === 'area' ? 'area' : 'length'} (${measure.unit})`, ...stages.map((s) => `${s.name} %`), 'snapshot', 'doNotTrack'];
  const rows = assets.map((a) => [
    nameOf(a),
    a._id,
    reachedStage(stages, a)?.name ?? 'Not started',
    (polylineLength(a.points) * measure.factor).toFixed(2),
    ...stages.map((s) => a.stages.find((x) => x._id === s._id)?.percentage ?? 0),
    a.snapshot ?? '',
    String(a.doNotTrack),
  ]);
  const csv = [head, ...rows].map((r) => r.map(q).join(',')).join('\r\n');
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `${category.name.replace(/[^\w.-]+/g, '-')}-assets.csv`;
  link.click();
  URL.revokeObjectURL(url);
}

/** What the legend's quantities are, in words: "lengths in m", "area in m2: drawn length × height 3 m", or plan units. */
function measureNote(m: CategoryMeasure, height: number | null): string {
  if (m.kind === 'length') return `lengths in ${m.unit}`;
  if (m.kind === 'area') return `area in ${m.unit}: drawn length × height ${height}`;
  return 'drawn length in plan units; the category’s unit cannot be derived from it';
}
