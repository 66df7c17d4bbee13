import type { AssetCategoryView, AssetView } from '../../../../shared/ipc.js';
import { downloadName, spreadsheetCsv } from '../../../../shared/spreadsheet.js';
import type { AssetFigures } from './asset-figures.js';
import { localDay } from './calendar.js';

/**
 * A category's assets as CSV (progress-records-interface.md §2 assets), one row each: its name as
 * shown, id, shape, the stage reached, its quantity in the category's unit (2 decimals), each
 * stage's percentage, the snapshot's local day (YYYY-MM-DD, as the month CSV writes dates; empty
 * when none) and doNotTrack. RFC 4180 with a byte order mark, every text cell safe to open in a
 * spreadsheet program (shared/spreadsheet.ts). Returns the file's name (the category's name with
 * its letters kept) and its text. Never throws.
 */
export function assetsCsv(
  category: AssetCategoryView,
  assets: readonly AssetView[],
  f: AssetFigures,
  nameOf: (a: AssetView) => string,
): { fileName: string; csv: string } {
  const header = [
    'asset',
    'id',
    'shape',
    'reached',
    `${f.sizeName.toLowerCase()} (${f.unit})`,
    ...f.stages.map((s) => `${s.name} %`),
    'snapshot',
    'doNotTrack',
  ];
  const rows = assets.map((a) => [
    nameOf(a),
    a._id,
    a.shape,
    f.reached(a)?.name ?? 'Not started',
    f.size(a).toFixed(2),
    ...f.stages.map((s) => a.stages.find((x) => x._id === s._id)?.percentage ?? 0),
    snapshotDay(a.snapshot),
    String(a.doNotTrack),
  ]);
  return { fileName: downloadName(category.name, '-assets.csv', 'assets'), csv: spreadsheetCsv(header, rows) };
}

/** An ISO 8601 snapshot time as its local day, YYYY-MM-DD; '' when absent, as given when unreadable. */
function snapshotDay(snapshot: string | null | undefined): string {
  if (!snapshot) return '';
  const d = new Date(snapshot);
  return Number.isNaN(d.getTime()) ? snapshot : localDay(d);
}
