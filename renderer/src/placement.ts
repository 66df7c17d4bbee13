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

/** A proposed capture (shared/ipc.ts) with what a person chose for it. */
export interface DraftCapture {
  proposal: ProposedCapture;
  form: DraftForm;
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

/** Whether a capture can be registered at all: not refused by the capture rules (§7) and not in the queue already. */
export function isRegistrable(d: DraftCapture): boolean {
  return !d.proposal.violation && !d.proposal.alreadyQueued;
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
