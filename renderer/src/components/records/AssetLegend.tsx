import { memo } from 'react';
import type { AssetCategoryView } from '../../../../shared/ipc.js';
import type { AssetFigures } from './asset-figures.js';
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
            <th>Stage reached</th>
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
              <td className="nowrap">
                <span className="swatch" style={{ background: MUTED }} /> Not tracked
              </td>
              <td>{f.untracked.length}</td>
              <td>
                {quantityText(
                  f.untracked.reduce((n, a) => n + f.size(a), 0),
                  f.unit,
                )}
              </td>
              <td className="nowrap">not counted</td>
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
