import { captureLabel } from '../../shared/capture-label.js';
import type { NamedStructure, ProposedCapture } from '../../shared/ipc.js';
import type { Placement } from '../../shared/registration.js';
import { placementName } from '../../shared/registration.js';

/** What a person chose for one capture: no structure until one is chosen (no silent defaults). */
export interface DraftForm {
  structure?: string;
  design?: string;
  type: 'interior' | 'exterior';
  /** ISO 8601 with a zone (§4.4 captureDateTime). */
  capturedAt: string;
}

/**
 * A proposed capture (shared/ipc.ts) with what a person chose for it; `placedBy` says who gave it
 * its place: the capture plan (shared/capture-plan.ts: placed again when the plan changes) or a
 * person (never moved by the plan); absent while it has none.
 */
export interface DraftCapture {
  proposal: ProposedCapture;
  form: DraftForm;
  placedBy?: 'plan' | 'person';
}

/** One choice of the "structure · design" list: a structure's design, or a structure that has none. */
export interface PlaceOption {
  value: string;
  structure: string;
  design?: string;
  label: string;
}

const SEP = '\u0000';

/** Every place a capture can go, by structure then design, with the names a person reads. */
export function placeOptions(structures: readonly NamedStructure[]): PlaceOption[] {
  return structures.flatMap((s) =>
    s.designs.length
      ? s.designs.map((d) => ({
          value: `${s.id}${SEP}${d.id}`,
          structure: s.id,
          design: d.id,
          label: placementName(s.name, d.name),
        }))
      : [{ value: `${s.id}${SEP}`, structure: s.id, label: `${s.name} (no designs)` }],
  );
}

/**
 * The names of a placement ("Tower A · Level 2"), or undefined when its structure (or design) is
 * not among the structures in Settings any more, so it cannot be offered or registered.
 */
export function nameOfPlacement(
  structures: readonly NamedStructure[],
  p: { structure?: string; design?: string },
): string | undefined {
  const s = structures.find((x) => x.id === p.structure);
  if (!s) return undefined;
  if (!p.design) return s.designs.length ? undefined : s.name;
  const d = s.designs.find((x) => x.id === p.design);
  return d ? placementName(s.name, d.name) : undefined;
}

/**
 * Whether a capture can be registered at all: not refused by the capture rules (§7), not in the
 * queue already, and not a second copy of a recording of the same card (the queue keeps it once).
 */
export function isRegistrable(d: DraftCapture): boolean {
  return !d.proposal.violation && !d.proposal.alreadyQueued && !d.proposal.duplicateOf;
}

/** Whether a capture can be registered now: registrable, with a known place chosen (a design when its structure has any). */
export function isReady(d: DraftCapture, structures: readonly NamedStructure[]): boolean {
  return isRegistrable(d) && nameOfPlacement(structures, d.form) !== undefined;
}

/** The placement of a ready capture (shared/registration.ts). */
export const placementOf = (d: DraftCapture): Placement => ({
  structure: d.form.structure!,
  design: d.form.design,
  type: d.form.type,
});

/**
 * A draft's label (shared/capture-label.ts) from the time it will be registered with: a shift or
 * an edited time renames it at once, in the table, the checkbox's name and the confirmation.
 */
export const draftLabel = (d: DraftCapture): string =>
  captureLabel({ capturedAt: d.form.capturedAt, fileNames: d.proposal.files.map((f) => f.name) });

/** The key of a place (structure and design), by which its type is remembered. */
export const placeKeyOf = (p: { structure: string; design?: string }): string =>
  `${p.structure}${SEP}${p.design ?? ''}`;

/**
 * One choice of a walk's list: a place and a type together ("Tower A · Level 1 · interior"),
 * `recent` when it is one of the places used last (captures.recentPlaces, then this window's).
 */
export interface PlaceChoice {
  value: string;
  structure: string;
  design?: string;
  type: 'interior' | 'exterior';
  label: string;
  recent: boolean;
}

/**
 * The choices of a walk's list: the recent places first (each with the type used there, in the
 * order given, those no longer in Settings left out), then every other place with both types,
 * the type last used for that structure and design first (`lastTypeFor`, by placeKeyOf), else
 * interior first. Each choice once.
 */
export function placeChoices(
  structures: readonly NamedStructure[],
  recents: readonly { structure: string; design?: string; type: 'interior' | 'exterior' }[],
  lastTypeFor: Readonly<Record<string, 'interior' | 'exterior'>>,
): PlaceChoice[] {
  const choice = (o: PlaceOption, type: 'interior' | 'exterior', recent: boolean): PlaceChoice => ({
    value: `${o.value}${SEP}${type}`,
    structure: o.structure,
    design: o.design,
    type,
    label: `${o.label.replace(/ \(no designs\)$/, '')} · ${type}`,
    recent,
  });
  const options = placeOptions(structures);
  const byKey = new Map(options.map((o) => [placeKeyOf(o), o]));
  const first: PlaceChoice[] = [];
  for (const r of recents) {
    const o = byKey.get(placeKeyOf(r));
    if (o && !first.some((c) => c.value === `${o.value}${SEP}${r.type}`)) first.push(choice(o, r.type, true));
  }
  const taken = new Set(first.map((c) => c.value));
  const rest = options.flatMap((o) => {
    const remembered = lastTypeFor[placeKeyOf(o)];
    const types: ('interior' | 'exterior')[] =
      remembered === 'exterior' ? ['exterior', 'interior'] : ['interior', 'exterior'];
    return types.map((t) => choice(o, t, false)).filter((c) => !taken.has(c.value));
  });
  return [...first, ...rest];
}

/** The words of a label a type-ahead matches: lower case, split at spaces and separators ("Tower A · Level 1 · interior" → tower, a, level, 1, interior). */
const wordsOf = (label: string) =>
  label
    .toLowerCase()
    .split(/[\s·\-–—,()/]+/)
    .filter(Boolean);

/**
 * Whether what a person typed picks `label`, by the starts of its words, in order: "a1" is
 * "Tower **A** · Level **1**", "are" "Tower **A** · **R**oof · **e**xterior", "to le 2" works too.
 * Spaces in the query are ignored; each run of its letters or digits begins a word it matches.
 * An empty query matches everything.
 */
export function matchesQuery(label: string, query: string): boolean {
  const q = query.toLowerCase().replace(/\s+/g, '');
  if (!q) return true;
  const words = wordsOf(label);
  // Depth-first over words: a word takes a prefix of what is left (at least one character) or is skipped.
  const from = (w: number, i: number): boolean => {
    if (i === q.length) return true;
    for (let k = w; k < words.length; k++) {
      const word = words[k]!;
      for (let n = Math.min(word.length, q.length - i); n >= 1; n--)
        if (word.startsWith(q.slice(i, i + n)) && from(k + 1, i + n)) return true;
    }
    return false;
  };
  return from(0, 0);
}
