import { memo } from 'react';
import type { AssetCategoryView, AssetView } from '../../../../shared/ipc.js';
import type { AssetFigures } from './asset-figures.js';
import { assetsCsv } from './assets-csv.js';
import { quantityText } from './asset-figures.js';
import { MUTED } from './palette.js';

/**
 * The legend (progress-records-interface.md §2 stages in sequence): the tracked assets counted by
 * the latest stage each has reached (one row per stage, so an asset counts once), their quantity
 * in the category's unit by shape, and their share; "Not tracked" when any asset is; then, said
 * as such, the per-stage totals: each stage's work done in its own unit ("120 of 300 m").
 */
export const AssetLegend = memo(function AssetLegend({
  category,
  f,
}: {
  category: AssetCategoryView;
  f: AssetFigures;
}) {
  return (
    <>
      <table className="legend" data-testid="asset-legend">
        <caption>
          Assets of {category.name} by the latest stage each has reached, stages in sequence ({f.note})
        </caption>
        <thead>
          <tr>
            <th>Latest stage reached</th>
            <th>Assets</th>
            <th>{f.sizeName}</th>
            <th>Share</th>
          </tr>
        </thead>
        <tbody>
          {f.totals.map((t) => (
            <tr key={t.stage?._id ?? 'none'}>
              <td>{t.stage?.name ?? 'Not started'}</td>
              <td>{t.assets}</td>
              <td>{quantityText(t.length, f.unit)}</td>
              <td>{(t.share * 100).toFixed(1)}%</td>
            </tr>
          ))}
          {f.untracked.length > 0 && (
            // Every state drawn is in the legend: do-not-track assets are drawn muted, outside the figures.
            <tr key="not-tracked" data-testid="legend-not-tracked">
              <td>
                <span className="swatch" style={{ background: MUTED }} /> Not tracked
              </td>
              <td>{f.untracked.length}</td>
              <td>
                {quantityText(
                  f.untracked.reduce((n, a) => n + f.size(a), 0),
                  f.unit,
                )}
              </td>
              <td>not counted</td>
            </tr>
          )}
        </tbody>
      </table>
      <table className="legend" data-testid="stage-work">
        <caption>Per-stage totals: the work done in each stage by all tracked assets, each in its own unit</caption>
        <thead>
          <tr>
            <th>Stage</th>
            <th>Done</th>
          </tr>
        </thead>
        <tbody>
          {f.stages.map((s) => (
            <tr key={s._id}>
              <td>{s.name}</td>
              <td>{f.stageWorkText(s)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
});

/** The assets one row each, by name (the id on hover), with their shape, quantity and every stage in its unit; exportable as CSV. */
export const AssetTable = memo(function AssetTable({
  category,
  assets,
  f,
  nameOf,
}: {
  category: AssetCategoryView;
  assets: AssetView[];
  f: AssetFigures;
  nameOf: (a: AssetView) => string;
}) {
  return (
    <section className="panel" aria-label="Assets as a table">
      <h3>Assets</h3>
      <div className="table-scroll" tabIndex={0} role="region" aria-label={`${category.name} assets, one row each`}>
        <table className="asset-table" data-testid="asset-table">
          <thead>
            <tr>
              <th>Asset</th>
              <th>Shape</th>
              <th>Reached</th>
              <th>
                {f.sizeName} ({f.unit})
              </th>
              {f.stages.map((s) => (
                <th key={s._id}>
                  {s.name}
                  {s.uom ? ` (${s.uom})` : ''}
                </th>
              ))}
              <th>Snapshot</th>
            </tr>
          </thead>
          <tbody>
            {assets.map((a) => (
              <AssetRow key={a._id} asset={a} f={f} name={nameOf(a)} />
            ))}
          </tbody>
        </table>
      </div>
      {/* After the table, so that the table is one Tab away from the drawing above. */}
      <button className="export-assets" onClick={() => downloadCsv(category, assets, f, nameOf)}>
        Export CSV
      </button>
    </section>
  );
});

/**
 * One asset's row. A component of its own so that React, rendering the table after the drawing
 * (AssetsView defers it), can pause between rows and keep hover and keys answered meanwhile.
 */
const AssetRow = memo(function AssetRow({ asset: a, f, name }: { asset: AssetView; f: AssetFigures; name: string }) {
  return (
    <tr>
      <td title={`Asset id ${a._id}`} data-testid="asset-name">
        {name}
        {a.doNotTrack ? ' (not tracked)' : ''}
      </td>
      <td>{f.shapeText(a)}</td>
      <td>{f.reached(a)?.name ?? 'Not started'}</td>
      <td>{quantityText(f.size(a), f.unit).split(' ')[0]}</td>
      {f.stages.map((s) => (
        <td key={s._id}>{f.stageCell(a, s)}</td>
      ))}
      <td>{a.snapshot ? f.day(a.snapshot) : '—'}</td>
    </tr>
  );
});

/** The table as a CSV file download (./assets-csv.ts: BOM, formula-safe cells, the name's letters kept). */
function downloadCsv(
  category: AssetCategoryView,
  assets: AssetView[],
  f: AssetFigures,
  nameOf: (a: AssetView) => string,
): void {
  const { fileName, csv } = assetsCsv(category, assets, f, nameOf);
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  URL.revokeObjectURL(url);
}
