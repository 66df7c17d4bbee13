import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CaptureForm, InspectResult, ProposedCapture } from '../../shared/ipc.js';

// The registration step's slice of the store against a stand-in window.api: what it sends to main is what is checked.
const sent: CaptureForm[][] = [];
let inspectAnswer: InspectResult = { captures: [], refused: [] };
const ok = <T>(value: T) => Promise.resolve({ ok: true as const, value });
/** While set, the next inspect waits for a cancel by its call id, as the IPC dispatch answers one. */
let holdInspect = false;
const cancelled: string[] = [];
const waiting = new Map<string, () => void>();
const fakeApi = {
  'files.inspect': (_paths: string[], call?: { callId?: string }) =>
    holdInspect && call?.callId
      ? new Promise((resolve) => waiting.set(call.callId!, () => resolve({ ok: false as const, error: 'Cancelled' })))
      : ok(inspectAnswer),
  cancel: (callId: string) => {
    cancelled.push(callId);
    waiting.get(callId)?.();
    return ok(waiting.delete(callId));
  },
  'captures.register': (forms: CaptureForm[]) => {
    sent.push(forms);
    return ok({ queued: forms.map((_, i) => i + 1), refused: [] });
  },
  'captures.lastPlacement': () => ok(null),
};

let useApp: typeof import('./store.js').useApp;
beforeAll(async () => {
  vi.stubGlobal('window', { api: fakeApi });
  ({ useApp } = await import('./store.js'));
});

const capture = (key: string, at: string): ProposedCapture => ({
  key,
  kind: 'dual-lens',
  label: key,
  files: [0, 1].map((l) => ({ path: `/card/${key}_${l}0.insv`, name: `${key}_${l}0.insv`, size: 10 })),
  media: {},
  capturedAt: at,
  alreadyQueued: false,
});
const towers = [
  { id: 'sA', name: 'Tower A', designs: [{ id: 'dA2', name: 'Level 2' }] },
  { id: 'sB', name: 'Tower B', designs: [{ id: 'dB1', name: 'Level 1' }] },
];
const keys = () => useApp.getState().drafts.map((d) => d.proposal.key);
const selected = () => [...useApp.getState().selected].sort();

beforeEach(async () => {
  sent.length = 0;
  useApp.getState().clearDrafts();
  useApp.setState({ settings: { structures: towers } as never, notices: [] });
  // Dropped out of order: the list is in recording order.
  inspectAnswer = {
    captures: ['c3', 'c1', 'c4', 'c2'].map((k) => capture(k, `2026-11-22T08:0${k[1]}:00Z`)),
    refused: [],
  };
  await useApp.getState().inspect(['/card']);
});

describe('the registration step slice', () => {
  it('lists captures in recording order with nothing placed', () => {
    expect(keys()).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(useApp.getState().drafts.map((d) => d.form.structure)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('selects a shift-click range from the last row clicked, in either direction', () => {
    const s = useApp.getState();
    s.toggleDraft('c4', false);
    s.toggleDraft('c2', true);
    expect(selected()).toEqual(['c2', 'c3', 'c4']);
    // The range takes the new state of the row shift-clicked: c1 was unselected, so c1…c3 become selected.
    s.toggleDraft('c3', false);
    expect(selected()).toEqual(['c2', 'c4']);
    s.toggleDraft('c1', true);
    expect(selected()).toEqual(['c1', 'c2', 'c3', 'c4']);
    s.toggleDraft('c2', false);
    s.toggleDraft('c4', true);
    expect(selected()).toEqual(['c1']);
  });

  it("extends a keyboard range from the anchor in the table's order, growing and shrinking it, keeping rows chosen apart", () => {
    const s = useApp.getState();
    const order = ['c1', 'c2', 'c3', 'c4'];
    // No anchor yet: the range starts at the focused row.
    s.extendTo('c1', 'c2', order);
    expect(selected()).toEqual(['c1', 'c2']);
    s.extendTo('c2', 'c4', order);
    expect(selected()).toEqual(['c1', 'c2', 'c3', 'c4']);
    s.extendTo('c4', 'c3', order);
    expect(selected()).toEqual(['c1', 'c2', 'c3']);
    // A row chosen on its own (Space) is the next anchor; rows selected before stay.
    s.selectDrafts(['c1', 'c2', 'c3'], false);
    s.toggleDraft('c4', false);
    s.toggleDraft('c1', false);
    s.extendTo('c1', 'c2', order);
    expect(selected()).toEqual(['c1', 'c2', 'c4']);
    // In the table's order, which follows corrected times, not the order the card was read in.
    s.selectDrafts(['c1', 'c2', 'c4'], false);
    s.applyToSelected({});
    s.extendTo('c4', 'c2', ['c1', 'c4', 'c2', 'c3']);
    expect(selected()).toEqual(['c2', 'c4']);
  });

  it('applies a place to the selection only, then clears it; registers only the placed captures', async () => {
    const s = useApp.getState();
    s.selectDrafts(['c1', 'c2'], true);
    expect(s.applyToSelected({ structure: 'sA', design: 'dA2', type: 'exterior' })).toBe(2);
    expect(selected()).toEqual([]);
    await useApp.getState().registerDrafts();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.map((f) => [f.paths[0], f.structure, f.design, f.type, f.capturedAt])).toEqual([
      ['/card/c1_00.insv', 'sA', 'dA2', 'exterior', '2026-11-22T08:01:00Z'],
      ['/card/c2_00.insv', 'sA', 'dA2', 'exterior', '2026-11-22T08:02:00Z'],
    ]);
    expect(keys()).toEqual(['c3', 'c4']);
  });

  it('never registers a design of another structure, nor a structure missing its design', async () => {
    const s = useApp.getState();
    s.applyTo(['c1'], { structure: 'sA', design: 'dB1' });
    s.applyTo(['c2'], { structure: 'sB' });
    await s.registerDrafts();
    expect(sent).toEqual([]);
  });

  it('sends an edited capture time as given, with its zone', async () => {
    const s = useApp.getState();
    s.setCapturedAt('c4', '2026-11-22T09:30:15+01:00');
    s.applyTo(['c4'], { structure: 'sB', design: 'dB1' });
    await s.registerDrafts();
    expect(sent[0]!.map((f) => f.capturedAt)).toEqual(['2026-11-22T09:30:15+01:00']);
  });
});

describe('stopping an inspection', () => {
  it('Stop cancels the running call by its id: the list stays as it was, and the notice says reading stopped', async () => {
    const before = keys();
    holdInspect = true;
    try {
      const reading = useApp.getState().inspect(['/card2']);
      expect(useApp.getState().inspecting).toBe(true);
      const callId = useApp.getState().inspectCall!;
      expect(callId).toBeTruthy();
      useApp.getState().stopInspect();
      await reading;
      expect(cancelled).toContain(callId);
      expect(useApp.getState()).toMatchObject({ inspecting: false, inspectCall: undefined });
      expect(keys()).toEqual(before);
      expect(useApp.getState().notices.map((n) => [n.level, n.message])).toEqual([
        ['info', 'Reading stopped: nothing was added from the item dropped.'],
      ]);
    } finally {
      holdInspect = false;
    }
  });
});
