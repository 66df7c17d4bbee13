import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CatalogError, parseCatalog } from './catalog.js';

// A catalog file is a person's file like a recording: reading it takes time in proportion to its
// size, whatever it holds (docs/media-readers.md). Generous bounds: the machine is shared.
const MiB = 1024 * 1024;
const allowedMs = (bytes: number) => 3000 + 500 * (bytes / MiB);

/** Parses `text` as `fileName`; answers the ms taken, having checked that it returned or threw a CatalogError. */
function timedParse(text: string, fileName: string): number {
  const t0 = performance.now();
  try {
    parseCatalog(text, fileName);
  } catch (err) {
    expect(err).toBeInstanceOf(CatalogError);
  }
  return performance.now() - t0;
}

describe('reading a catalog takes time in proportion to its size', () => {
  it(
    '60,000 designs of one structure (1.75 MiB of CSV, and the same as JSON) are read within a time per MiB, each kept once',
    { timeout: 120_000 },
    () => {
      const n = 60_000;
      const csv = [
        'structure_id,structure_name,design_id,design_name',
        ...Array.from({ length: n }, (_, i) => `s1,Tower A,d${i},Design ${i}`),
      ].join('\n');
      const json = JSON.stringify([
        {
          id: 's1',
          name: 'Tower A',
          designs: Array.from({ length: n }, (_, i) => ({ id: `d${i}`, name: `Design ${i}` })),
        },
      ]);
      for (const [text, name] of [
        [csv, 'catalog.csv'],
        [json, 'catalog.json'],
      ] as const) {
        const t0 = performance.now();
        const [tower] = parseCatalog(text, name);
        expect(performance.now() - t0).toBeLessThan(allowedMs(text.length));
        expect(tower!.designs).toHaveLength(n);
        expect(tower!.designs[n - 1]).toEqual({ id: `d${n - 1}`, name: `Design ${n - 1}` });
      }
    },
  );

  it('a design id given two names is still refused, naming the line', () => {
    const csv =
      'structure_id,structure_name,design_id,design_name\ns1,Tower A,d1,One\ns1,Tower A,d2,Two\ns1,Tower A,d1,Uno\n';
    expect(() => parseCatalog(csv, 'c.csv')).toThrow('Line 4: design d1 is named "Uno" here but "One" above.');
  });

  it('fuzz: CSV of quotes, separators and line breaks is read or refused within a time per MiB', () => {
    const cell = fc.stringMatching(/^[a-z0-9 ",\r\n\uFEFF]{0,12}$/);
    const row = fc.array(cell, { minLength: 0, maxLength: 6 }).map((cells) => cells.join(','));
    const file = fc
      .tuple(
        fc.constantFrom('structure_id,structure_name,design_id,design_name\n', '', 'a,b\n'),
        fc.array(row, { maxLength: 400 }),
      )
      .map(([head, rows]) => head + rows.join('\n'));
    fc.assert(
      fc.property(file, (text) => {
        expect(timedParse(text, 'fuzz.csv')).toBeLessThan(allowedMs(text.length));
      }),
      { numRuns: 200, seed: 20261127 },
    );
  });
});
