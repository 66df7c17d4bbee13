// The browser build: this module runs in the renderer too, where Node's Buffer is absent.
import { stringify } from 'csv-stringify/browser/esm/sync';

/**
 * The characters that make a spreadsheet program read a cell as a formula or a command when it
 * leads: `=`, `+`, `-`, `@`, a tab and a carriage return (OWASP, "CSV Injection").
 */
const FORMULA_LEAD = /^[=+\-@\t\r]/;

/**
 * A text cell made safe to open in Excel, LibreOffice or Numbers: a cell that begins with one of
 * the characters in {@link FORMULA_LEAD} gets a leading apostrophe, so it is shown as the text it
 * is and never run (OWASP's advice for CSV injection; see docs/decisions/0001-csv-formula-cells.md).
 * Any other text is returned as it is. Never throws.
 */
function spreadsheetSafe(text: string): string {
  return FORMULA_LEAD.test(text) ? `'${text}` : text;
}

/** One cell of a {@link spreadsheetCsv} row: text (made safe) or a number (written as it is). */
export type SpreadsheetCell = string | number;

/**
 * Rows as a CSV file for spreadsheet programs: RFC 4180 (comma, CRLF between records, quotes
 * doubled), UTF-8 with a byte order mark so that accented names open as written, and every text
 * cell passed through {@link spreadsheetSafe} (the header too). A cell is quoted when it holds
 * the comma, a quote, a line feed, a carriage return (alone or as CRLF) or a tab: a line break
 * left bare ends the record in every spreadsheet program, so one entry would become two rows,
 * and a bare tab makes LibreOffice's import guess tabs as the separator. Numbers are written as
 * numbers: a negative figure is data, not a formula. `header` is the first row; `rows` follow in
 * order. Never throws.
 */
export function spreadsheetCsv(header: readonly string[], rows: readonly (readonly SpreadsheetCell[])[]): string {
  return stringify([header, ...rows] as SpreadsheetCell[][], {
    record_delimiter: 'windows',
    // csv-stringify quotes a bare LF or CR only when asked, once a record delimiter is given.
    quote_record_delimiter: true,
    quoted_match: /\t/,
    bom: true,
    cast: { string: (value) => spreadsheetSafe(value) },
  });
}

/**
 * A file name for a download that keeps the person's letters, accents and scripts (Unicode letters
 * and digits), replacing only what file systems refuse or read as structure (slashes, colons,
 * quotes, control characters, runs of spaces) with a hyphen. `fallback` when nothing is left.
 */
export function downloadName(name: string, suffix: string, fallback = 'export'): string {
  const base = name
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return `${base || fallback}${suffix}`;
}
