import { execFile } from 'node:child_process';

/**
 * The text of a PDF (bytes) as Debian's poppler-utils reads it: `pdftotext -raw` keeps the content
 * stream's order, so a table cell that wraps onto several lines comes out in one piece; every run
 * of whitespace (line breaks included) is then made one space, so a phrase can be looked for
 * whatever the page's line breaks were. Rejects when pdftotext is missing or the bytes are not a
 * PDF it can read (its own message).
 */
function pdfText(pdf: Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'pdftotext',
      ['-raw', '-enc', 'UTF-8', '-', '-'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`pdftotext could not read the PDF: ${stderr.trim() || err.message}`));
        else resolve(stdout.replace(/\s+/g, ' ').trim());
      },
    );
    child.stdin!.end(pdf);
  });
}

/**
 * The phrases that the PDF's text does not contain, in the order given. Whitespace is left out of
 * the comparison: a printed line may break where the phrase has no space (after the dash of
 * "8–10"), and then the text has one; every other character must be there, in order.
 */
export async function missingFromPdf(pdf: Uint8Array, phrases: string[]): Promise<string[]> {
  const bare = (s: string) => s.replace(/\s+/g, '');
  const text = bare(await pdfText(pdf));
  return phrases.filter((p) => !text.includes(bare(p)));
}
