import Papa from 'papaparse';
import { z } from 'zod';
import type { NamedStructure } from './ipc.js';
import { namedStructure } from './ipc.js';

/**
 * The project's structures and designs as the office sends them, read from a
 * CSV or JSON file instead of typed in one by one. The ids are the platform's (§4.4 `structure`,
 * `design`); the names are what operators choose from.
 *
 * CSV: a header row with `structure_id`, `structure_name`, `design_id`, `design_name` (any case;
 * spaces or hyphens for the underscore), one row per design; a structure without designs is a row
 * with the design columns empty. JSON: an array of `{ id, name, designs: [{ id, name }] }`, or
 * an object with such an array under `structures`.
 */

/** The file cannot be read as a catalog; the message names the line (CSV) or entry (JSON) and what is wrong. */
export class CatalogError extends Error {
  override readonly name = 'CatalogError';
}

const COLUMNS = ['structure_id', 'structure_name', 'design_id', 'design_name'] as const;
const normalise = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/**
 * Parses a catalog file by its name's extension (.csv or .json). Returns the structures in file
 * order with their designs. Throws CatalogError naming the line or entry for anything it cannot
 * take: a missing column or value, an id given two names, an unknown file type, malformed JSON.
 */
export function parseCatalog(text: string, fileName: string): NamedStructure[] {
  if (/\.csv$/i.test(fileName)) return parseCsv(text);
  if (/\.json$/i.test(fileName)) return parseJson(text);
  throw new CatalogError(`${fileName}: only .csv and .json files can be imported.`);
}

function parseCsv(text: string): NamedStructure[] {
  const parsed = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: 'greedy',
    transformHeader: normalise,
  });
  const missing = COLUMNS.filter((c) => !parsed.meta.fields?.includes(c));
  if (missing.length)
    throw new CatalogError(
      `Line 1: the header needs the columns ${COLUMNS.join(', ')}; missing ${missing.join(', ')}.`,
    );
  const err = parsed.errors[0];
  // Papa counts data rows from 0; the header is line 1 (quoted line breaks inside a value are not expected in a catalog).
  if (err) throw new CatalogError(`Line ${(err.row ?? 0) + 2}: ${err.message}.`);
  const out = new Map<string, NamedStructure>();
  parsed.data.forEach((row, i) => {
    const line = i + 2;
    const v = Object.fromEntries(COLUMNS.map((c) => [c, (row[c] ?? '').trim()])) as Record<
      (typeof COLUMNS)[number],
      string
    >;
    if (!v.structure_id || !v.structure_name)
      throw new CatalogError(`Line ${line}: structure_id and structure_name are both needed.`);
    if (Boolean(v.design_id) !== Boolean(v.design_name))
      throw new CatalogError(`Line ${line}: a design needs both design_id and design_name (or leave both empty).`);
    const s = out.get(v.structure_id) ?? { id: v.structure_id, name: v.structure_name, designs: [] };
    if (s.name !== v.structure_name)
      throw new CatalogError(
        `Line ${line}: structure ${v.structure_id} is named "${v.structure_name}" here but "${s.name}" above.`,
      );
    out.set(s.id, s);
    if (v.design_id) addDesign(s, { id: v.design_id, name: v.design_name }, `Line ${line}`);
  });
  if (out.size === 0) throw new CatalogError('The file has a header but no structures.');
  return [...out.values()];
}

const jsonCatalog = z.union([
  z.array(namedStructure),
  z.object({ structures: z.array(namedStructure) }).transform((o) => o.structures),
]);

function parseJson(text: string): NamedStructure[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CatalogError(`Not valid JSON: ${err instanceof Error ? err.message : String(err)}.`);
  }
  const r = jsonCatalog.safeParse(value);
  if (!r.success) {
    // The union's first branch (a bare array) gives the clearer path for the usual shape.
    const issue = r.error.issues[0]!;
    const deep = issue.code === 'invalid_union' ? (issue.errors.find((e) => e.length)?.[0] ?? issue) : issue;
    const where = deep.path.length
      ? deep.path
          .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
          .join('')
          .replace(/^\./, '')
      : 'the file';
    throw new CatalogError(
      `Entry ${where}: ${deep.message}. Expected an array of { id, name, designs: [{ id, name }] }.`,
    );
  }
  const out = new Map<string, NamedStructure>();
  r.data.forEach((s, i) => {
    if (out.has(s.id)) throw new CatalogError(`Entry [${i}]: structure ${s.id} appears twice.`);
    const kept: NamedStructure = { id: s.id, name: s.name, designs: [] };
    s.designs.forEach((d, k) => addDesign(kept, d, `Entry [${i}].designs[${k}]`));
    out.set(s.id, kept);
  });
  return [...out.values()];
}

// Each structure's designs by id, for the structures of the parse under way: a lookup per row, so
// a catalog is read in time proportional to its rows (docs/media-readers.md), not its rows squared.
const designIndex = new WeakMap<NamedStructure, Map<string, { id: string; name: string }>>();

function addDesign(s: NamedStructure, d: { id: string; name: string }, where: string): void {
  let byId = designIndex.get(s);
  if (!byId) designIndex.set(s, (byId = new Map(s.designs.map((x) => [x.id, x]))));
  const seen = byId.get(d.id);
  if (!seen) {
    s.designs.push(d);
    byId.set(d.id, d);
  } else if (seen.name !== d.name)
    throw new CatalogError(`${where}: design ${d.id} is named "${d.name}" here but "${seen.name}" above.`);
}

/**
 * The structures after an import: imported ones replace those with the same id (the office's
 * names win), the others are kept, new ones are added at the end.
 */
export function mergeCatalog(
  current: readonly NamedStructure[],
  imported: readonly NamedStructure[],
): NamedStructure[] {
  const byId = new Map(imported.map((s) => [s.id, s]));
  const kept = current.filter((s) => s.id).map((s) => byId.get(s.id) ?? s);
  const known = new Set(kept.map((s) => s.id));
  return [...kept, ...imported.filter((s) => !known.has(s.id))];
}
