import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CaptureForm, InspectResult, PlanView, ProposedCapture } from '../../shared/ipc.js';
import { matchesQuery, placeChoices } from './placement.js';

// Placement in one step and the capture plan in the store, against a stand-in window.api: a card
// listed is placed by the plan; a person's place is never moved by it; a plan changed later
// places what is not registered yet as walks of the same card; a walk is placed by one choice.

const sent: CaptureForm[][] = [];
let inspectAnswer: InspectResult = { captures: [], refused: [] };
let plan: PlanView = { autoRegister: false, days: [], updatedAt: null };
const ok = <T>(value: T) => Promise.resolve({ ok: true as const, value });
const fakeApi = {
  'files.inspect': () => ok(inspectAnswer),
  'captures.register': (forms: CaptureForm[]) => {
    sent.push(forms);
    return ok({ queued: forms.map((_, i) => i + 1), refused: [] });
  },
  'captures.lastPlacement': () => ok(null),
  'captures.recentPlaces': () => ok([{ structure: 'sB', design: 'dB1', type: 'exterior' as const }]),
  'plan.get': () => ok(plan),
  on: () => () => undefined,
};

let useApp: typeof import('./store.js').useApp;
beforeAll(async () => {
  vi.stubGlobal('window', { api: fakeApi });
  ({ useApp } = await import('./store.js'));
});

const CAMERA = 'IAEAN00000XXXX';
const towers = [
  {
    id: 'sA',
    name: 'Tower A',
    designs: [
      { id: 'dA1', name: 'Level 1' },
      { id: 'dA2', name: 'Level 2' },
      { id: 'dR', name: 'Roof' },
    ],
  },
  { id: 'sB', name: 'Tower B', designs: [{ id: 'dB1', name: 'Level 1' }] },
];
/** Three walks of two recordings on Monday 23 Nov 2026 (local), two hours apart, by the camera. */
const card = (): ProposedCapture[] =>
  [8, 10, 12].flatMap((h, w) =>
    [0, 1].map((i) => ({
      key: `w${w + 1}-${i}`,
      kind: 'dual-lens' as const,
      label: `w${w + 1}-${i}`,
      files: [{ path: `/card/w${w}${i}.insv`, name: `w${w}${i}.insv`, size: 10 }],
      media: { camera: { serialNumber: CAMERA } },
      capturedAt: new Date(2026, 10, 23, h, i).toISOString(),
      alreadyQueued: false,
    })),
  );
const A1 = { structure: 'sA', design: 'dA1', type: 'interior' as const };
const A2 = { structure: 'sA', design: 'dA2', type: 'interior' as const };
const B1x = { structure: 'sB', design: 'dB1', type: 'exterior' as const };
const planOf = (walks: (typeof A1 | typeof B1x)[]): PlanView => ({
  autoRegister: false,
  days: [{ camera: CAMERA, day: '2026-11-23', walks }],
  updatedAt: null,
});
const placeOf = (key: string) => {
  const d = useApp.getState().drafts.find((x) => x.proposal.key === key)!;
  return [d.form.structure, d.form.design, d.form.structure ? d.form.type : undefined, d.placedBy];
};

beforeEach(() => {
  sent.length = 0;
  useApp.getState().clearDrafts();
  useApp.setState({ settings: { structures: towers } as never, notices: [], recentPlaces: [], lastTypeFor: {} });
  inspectAnswer = { captures: card(), refused: [] };
});

describe('the capture plan places a card listed', () => {
  it('whole when it matches: every capture placed, complete, and one registration sends them all', async () => {
    plan = planOf([A1, A2, B1x]);
    await useApp.getState().inspect(['/card']);
    expect(useApp.getState().planMatch).toMatchObject({ complete: true, problems: [], placed: 6 });
    expect(placeOf('w3-1')).toEqual(['sB', 'dB1', 'exterior', 'plan']);
    await useApp.getState().registerDrafts();
    expect(sent[0]!.map((f) => [f.structure, f.design, f.type])).toEqual([
      ['sA', 'dA1', 'interior'],
      ['sA', 'dA1', 'interior'],
      ['sA', 'dA2', 'interior'],
      ['sA', 'dA2', 'interior'],
      ['sB', 'dB1', 'exterior'],
      ['sB', 'dB1', 'exterior'],
    ]);
  });

  it("never moves a person's place; a plan changed after part of the card was registered places the rest as the same card's walks", async () => {
    plan = planOf([A1]);
    await useApp.getState().inspect(['/card']);
    expect(useApp.getState().planMatch).toMatchObject({ complete: false, placed: 2 });
    expect(useApp.getState().planMatch!.problems).toHaveLength(2);
    // The person places walk 2 by hand, and registers walks 1 and 2.
    const choice = placeChoices(towers, [], {}).find((c) => c.label === 'Tower A · Roof · exterior')!;
    expect(useApp.getState().placeWalk(['w2-0', 'w2-1'], choice, 2)).toBe(2);
    expect(useApp.getState().placeNote).toBe('Tower A · Roof (exterior) set on 2 captures of site walk 2.');
    await useApp.getState().registerDrafts();
    expect(sent[0]).toHaveLength(4);
    // Then the plan gets three walks: walk 3 of the card takes the plan's walk 3, not its walk 1.
    useApp.getState().applyPlanView(planOf([A1, A2, B1x]));
    expect(placeOf('w3-0')).toEqual(['sB', 'dB1', 'exterior', 'plan']);
    // What is left matches whole: its one Register and upload.
    expect(useApp.getState().planMatch).toMatchObject({ complete: true, placed: 2 });
  });

  it('takes back what it placed when the plan no longer places it, and keeps what a person placed', async () => {
    plan = planOf([A1, A2, B1x]);
    await useApp.getState().inspect(['/card']);
    const choice = placeChoices(towers, [], {}).find((c) => c.label === 'Tower A · Roof · exterior')!;
    useApp.getState().placeWalk(['w1-0', 'w1-1'], choice, 1);
    useApp.getState().applyPlanView({ autoRegister: false, days: [], updatedAt: null });
    expect(placeOf('w1-0')).toEqual(['sA', 'dR', 'exterior', 'person']);
    expect(placeOf('w2-0')).toEqual([undefined, undefined, undefined, undefined]);
    expect(useApp.getState().planMatch).toBeNull();
  });

  it('shifts the whole card when nothing is selected, and places it again by the shifted times', async () => {
    // A plan for the 24th: the card, recorded on the 23rd with a camera a day slow, matches once shifted.
    plan = { ...planOf([A1, A2, B1x]), days: [{ camera: CAMERA, day: '2026-11-24', walks: [A1, A2, B1x] }] };
    await useApp.getState().inspect(['/card']);
    expect(useApp.getState().planMatch!.complete).toBe(false);
    expect(useApp.getState().shiftSelected({ kind: 'by', ms: 86_400_000 })).toBe(6);
    expect(useApp.getState().planMatch!.complete).toBe(true);
  });
});

describe("a walk's list", () => {
  it('the recent places first with their type, then every place with the type remembered for it first', () => {
    const labels = placeChoices(towers, [{ structure: 'sB', design: 'dB1', type: 'exterior' }], {
      'sA\u0000dA2': 'exterior',
    }).map((c) => `${c.label}${c.recent ? ' (recent)' : ''}`);
    expect(labels).toEqual([
      'Tower B · Level 1 · exterior (recent)',
      'Tower A · Level 1 · interior',
      'Tower A · Level 1 · exterior',
      'Tower A · Level 2 · exterior',
      'Tower A · Level 2 · interior',
      'Tower A · Roof · interior',
      'Tower A · Roof · exterior',
      'Tower B · Level 1 · interior',
    ]);
  });

  it('type-ahead by the starts of words, in order', () => {
    const label = 'Tower A · Roof · exterior';
    expect(['', 'a', 'ar', 'are', 'to ro', 'tower a roof ext', 'ROOF'].map((q) => matchesQuery(label, q))).toEqual(
      Array(7).fill(true),
    );
    expect(['b', 'ra', 'rx', 'oof', 'a1'].map((q) => matchesQuery(label, q))).toEqual(Array(5).fill(false));
    expect(matchesQuery('Tower A · Level 1 · interior', 'a1')).toBe(true);
    expect(matchesQuery('Tower B · Level 1 · interior', 'a1')).toBe(false);
  });
});
