import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoreApi, UseBoundStore } from 'zustand';
import type { OutboxItemView, ProgressEntryView } from '../../shared/ipc.js';
import type { OfficeState } from './office-test-api.js';
import { OfficeApi, officeStore, settle } from './office-test-api.js';

// The outbox's slice of the store against a stand-in window.api: what is sent to the service for
// an entry recorded, corrected or discarded, and what the workspace then shows.
const office = new OfficeApi();
let store: UseBoundStore<StoreApi<OfficeState>>;
let UNDO_MS: number;
const s = () => store.getState();
beforeAll(async () => {
  store = await officeStore(office);
  ({ UNDO_MS } = await import('./outbox-slice.js'));
});

const item = (id: number, over: Partial<OutboxItemView> = {}): OutboxItemView => ({
  id,
  date: '2026-11-26',
  status: 'In Progress',
  details: `kept ${id}`,
  queuedAt: '2026-11-26T09:00:00Z',
  state: 'waiting',
  error: null,
  field: null,
  ...over,
});
const recorded = (id: string, date: string): ProgressEntryView => ({ id, date, status: 'In Progress', details: id });
let outboxHeld: OutboxItemView[] = [];
const input = { date: '2026-10-30', status: 'In Progress' as const, details: 'Tower B level 5 firestopping' };

beforeEach(async () => {
  s().closeOutbox();
  s().closeProgress();
  await settle();
  office.calls.length = 0;
  outboxHeld = [item(1), item(2, { state: 'refused', error: 'details must name a structure', field: 'details' })];
  office.answer('queue.byDay', () => []);
  office.answer('progress.list', () => ({
    entries: [recorded('e1', '2026-11-26')],
    project: 'p1',
    projectName: '',
    outbox: outboxHeld,
    asOf: '2026-11-26T09:12:00Z',
    offline: false,
    offlineReason: null,
  }));
  office.answer('progress.discard', (a) => {
    outboxHeld = outboxHeld.filter((i) => i.id !== (a as { id: number }).id);
    return true;
  });
  s().openProgress('2026-11-26');
  await settle();
});

describe('the outbox slice', () => {
  it("records a new entry once and shows it on its day; one kept offline joins the outbox and the heading says it's the copy", async () => {
    office.answer('progress.create', (a) => ({ entry: recorded('e9', (a as typeof input).date), queued: null }));
    expect(await s().sendEntry(input)).toEqual({ kind: 'recorded', entry: recorded('e9', '2026-10-30') });
    expect(office.callsOf('progress.create').map((c) => c.args)).toEqual([input]);
    expect(s().progressEntries?.map((e) => e.id)).toEqual(['e1', 'e9']);
    expect([s().progressMonth, s().progressDay]).toEqual(['2026-10', '2026-10-30']);

    const kept = item(7, { date: '2026-10-30' });
    office.answer('progress.create', () => ({ entry: null, queued: kept }));
    expect(await s().sendEntry(input)).toEqual({ kind: 'queued', item: kept });
    expect(s().outbox.map((i) => i.id)).toEqual([1, 2, 7]);
    expect(s().progressFresh?.offline).toBe(true);
  });

  it('says a refusal with the field it names, and a failed call with its sentence, recording nothing', async () => {
    office.answer('progress.create', () => ({
      entry: null,
      queued: item(8, { state: 'refused', error: 'date is closed', field: 'date' }),
    }));
    expect(await s().sendEntry(input)).toEqual({ kind: 'refused', error: 'date is closed', field: 'date' });
    office.answer('progress.create', () => new Error('The upload service did not answer within 3 min'));
    expect(await s().sendEntry(input)).toEqual({
      kind: 'failed',
      message: 'The upload service did not answer within 3 min',
    });
    expect(s().progressEntries?.map((e) => e.id)).toEqual(['e1']);
    expect(s().outbox.map((i) => i.id)).toEqual([1, 2]);
  });

  it('sends a corrected outbox entry by its id (progress.revise), then closes it and reads the outbox again', async () => {
    s().editOutbox(s().outbox[1]!);
    office.answer('progress.revise', (a) => {
      outboxHeld = outboxHeld.filter((i) => i.id !== (a as { id: number }).id);
      return { entry: recorded('e10', '2026-11-26'), item: null };
    });
    expect((await s().sendEntry(input)).kind).toBe('recorded');
    expect(office.callsOf('progress.revise').map((c) => c.args)).toEqual([{ id: 2, ...input }]);
    expect(office.callsOf('progress.create')).toEqual([]);
    expect(s().outboxEditing).toBeNull();
    await settle();
    expect(s().outbox.map((i) => i.id)).toEqual([1]);
    // Refused again: it stays open in the form.
    s().editOutbox(s().outbox[0]!);
    office.answer('progress.revise', () => ({ entry: null, item: item(1, { state: 'refused', error: 'no' }) }));
    expect((await s().sendEntry(input)).kind).toBe('refused');
    expect(s().outboxEditing?.id).toBe(1);
  });

  it('discards after the undo time, carries out at once one pending when another is discarded, and takes one back', async () => {
    const [one, two] = s().outbox as [OutboxItemView, OutboxItemView];
    s().discardOutbox(one, 1_000);
    expect(s().outboxDiscarding).toEqual({ item: one, at: 1_000 + UNDO_MS });
    expect(office.callsOf('progress.discard')).toEqual([]);
    s().discardOutbox(two, 2_000);
    expect(s().outboxDiscarding).toEqual({ item: two, at: 2_000 + UNDO_MS });
    await settle();
    expect(office.callsOf('progress.discard').map((c) => c.args)).toEqual([{ id: 1 }]);
    expect(s().outbox.map((i) => i.id)).toEqual([2]);
    s().undoDiscard();
    expect(s().outboxDiscarding).toBeNull();
    // Its time come (office-timers.ts calls it), the pending one goes; with none, nothing is sent.
    s().discardOutbox(two);
    await s().settleDiscard();
    await s().settleDiscard();
    expect(office.callsOf('progress.discard').map((c) => c.args)).toEqual([{ id: 1 }, { id: 2 }]);
    await settle();
    expect(s().outbox).toEqual([]);
  });

  it('says why a discard failed, and carries out a pending discard when the workspace closes', async () => {
    office.answer('progress.discard', () => new Error('records.db is read-only'));
    s().discardOutbox(s().outbox[0]!);
    await s().settleDiscard();
    expect(s().outboxProblem).toBe('The entry could not be discarded: records.db is read-only');
    office.answer('progress.discard', () => true);
    s().discardOutbox(s().outbox[1]!);
    s().closeOutbox();
    s().closeProgress();
    await settle();
    expect(office.callsOf('progress.discard').map((c) => c.args)).toEqual([{ id: 1 }, { id: 2 }]);
    expect([s().outboxDiscarding, s().outboxProblem, s().outboxEditing]).toEqual([null, null, null]);
  });
});
