import { memo } from 'react';
import type { AssetCategoryView, AssetView } from '../../../../shared/ipc.js';
import type { AssetFigures } from './asset-figures.js';
import { quantityText } from './asset-figures.js';
import { assetsCsv } from './assets-csv.js';

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
