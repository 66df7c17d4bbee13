import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { AssetCategoryView, AssetView } from '../../../../shared/ipc.js';
import { assetFigures } from './asset-figures.js';
import { assetsCsv } from './assets-csv.js';
import { localDay } from './calendar.js';

// The Assets view's "Export CSV", read back with a real CSV parser as a spreadsheet program would:
// the category's accented name kept in the file name and in the cells (UTF-8 with a BOM), dates as
// the month CSV writes them, and no cell a spreadsheet would run (OWASP, "CSV Injection").

const category: AssetCategoryView = {
  id: 'c1',
  name: 'Façade / Niveau 2',
  uom: 'm',
  height: null,
  stages: [
    { _id: 's1', name: '=Anchors set', sequence: 1, color: '#000', uom: 'm', measurement: 'length' },
    { _id: 's2', name: 'Panels hung', sequence: 2, color: '#000', uom: 'm', measurement: 'length' },
  ],
};
const asset = (id: string, snapshot: string | null): AssetView => ({
  _id: id,
  shape: 'Polyline',
  points: [
    { x: 0, y: 0 },
    { x: 3, y: 4 },
  ],
  doNotTrack: false,
  snapshot,
  stages: [
    { _id: 's1', percentage: 100, date: '2026-11-20T10:00:00.000Z' },
    { _id: 's2', percentage: 40, date: null },
  ],
});
const assets = [asset('a1', '2026-11-20T10:00:00.000Z'), asset('+a2', null)];
const names = new Map([
  ['a1', 'Façade 1'],
  ['+a2', '@SUM(A1:A9)'],
]);

describe('assetsCsv', () => {
  const { fileName, csv } = assetsCsv(category, assets, assetFigures(category, assets), (a) => names.get(a._id)!);
  const bytes = new TextEncoder().encode(csv);
  const rows = Papa.parse<string[]>(csv.replace(/^\uFEFF/, ''), { newline: '\r\n', skipEmptyLines: true });

  it('keeps the accented name in the file name and the cells, behind a UTF-8 byte order mark', () => {
    expect(fileName).toBe('Façade-Niveau-2-assets.csv');
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(rows.errors).toEqual([]);
    expect(rows.data[1]![0]).toBe('Façade 1');
  });

  it('writes the snapshot as its local day, as the month CSV writes dates, and nothing when there is none', () => {
    expect(rows.data[1]![7]).toBe(localDay(new Date('2026-11-20T10:00:00.000Z')));
    expect(rows.data[2]![7]).toBe('');
  });

  it('leads every formula-like text cell, header included, with an apostrophe', () => {
    expect(rows.data[0]![5]).toBe("'=Anchors set %");
    expect(rows.data[2]!.slice(0, 2)).toEqual(["'@SUM(A1:A9)", "'+a2"]);
    for (const row of rows.data) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });
});
