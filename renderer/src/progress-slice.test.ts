import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoreApi, UseBoundStore } from 'zustand';
import type { DayCaptureView, OutboxItemView, ProgressEntryView } from '../../shared/ipc.js';
import type { OfficeState } from './office-test-api.js';
import { OfficeApi, officeStore, settle } from './office-test-api.js';

// The Progress workspace's slice of the store against a stand-in window.api: what it asks the
// service for, and what the workspace then shows.
const office = new OfficeApi();
let store: UseBoundStore<StoreApi<OfficeState>>;
const s = () => store.getState();
beforeAll(async () => {
  store = await officeStore(office);
});

const entry = (id: string, date: string, status = 'In Progress'): ProgressEntryView => ({
  id,
  date,
  status,
  details: `entry ${id}`,
});
const waiting = (id: number, date: string): OutboxItemView => ({
  id,
  date,
  status: 'Completed',
  details: `kept ${id}`,
  queuedAt: '2026-11-26T09:00:00Z',
  state: 'waiting',
  error: null,
  field: null,
});
const capture = (label: string): DayCaptureView => ({
  captureRow: 1,
  label,
  structure: 's1',
  structureName: 'Tower A',
  state: 'completed',
  capturedAt: '2026-11-26T07:45:00-05:00',
  files: 2,
  filesUploaded: 2,
  uploadedAt: '2026-11-26T08:00:00-05:00',
});
const list = (over: Partial<{ entries: ProgressEntryView[]; outbox: OutboxItemView[]; offline: boolean }> = {}) => ({
  entries: over.entries ?? [entry('e1', '2026-11-26'), entry('e2', '2026-10-30', 'Completed')],
  project: 'p1',
  projectName: 'Harbor View',
  outbox: over.outbox ?? [],
  asOf: '2026-11-26T09:12:00Z',
  offline: over.offline ?? false,
  offlineReason: over.offline ? 'ECONNRESET' : null,
});

beforeEach(() => {
  s().closeProgress();
  office.calls.length = 0;
  office.held.length = 0;
  office.hold('progress.list', false).hold('queue.byDay', false);
  office.answer('progress.list', () => list());
  office.answer('queue.byDay', (a) => [capture(`walk of ${(a as { date: string }).date}`)]);
});

describe('the Progress workspace slice', () => {
  it("opens on today: reads the entries, their freshness, the outbox and today's captures", async () => {
    s().openProgress('2026-11-26');
    expect(s().progressLoading).toBe(true);
    await settle();
    expect(office.calls.map((c) => [c.name, c.args])).toEqual([
      ['queue.byDay', { date: '2026-11-26' }],
      ['progress.list', {}],
    ]);
    expect(s().progressEntries?.map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(s().progressFresh).toEqual({
      asOf: '2026-11-26T09:12:00Z',
      offline: false,
      offlineReason: null,
      project: 'p1',
      projectName: 'Harbor View',
    });
    expect([s().progressMonth, s().progressDay, s().progressLoading]).toEqual(['2026-11', '2026-11-26', false]);
    expect(s().dayCaptures?.map((c) => c.label)).toEqual(['walk of 2026-11-26']);
  });

  it('keeps the last entries when a read fails, says why, and clears it at the next good read', async () => {
    s().openProgress('2026-11-26');
    await settle();
    office.answer('progress.list', () => new Error('No connection to the progress service; this view needs it once.'));
    await s().loadProgress();
    expect(s().progressError).toBe('No connection to the progress service; this view needs it once.');
    expect(s().progressEntries?.map((e) => e.id)).toEqual(['e1', 'e2']);
    office.answer('progress.list', () => list({ offline: true, outbox: [waiting(4, '2026-11-26')] }));
    await s().loadProgress();
    expect(s().progressError).toBeNull();
    expect(s().progressFresh?.offline).toBe(true);
    expect(s().outbox.map((i) => i.id)).toEqual([4]);
  });

  it('drops an answer that comes after the workspace closed, and starts the next visit afresh', async () => {
    office.hold('progress.list');
    s().openProgress('2026-11-26');
    s().setProgressStatus('Completed');
    s().closeProgress();
    office.release('progress.list', list());
    await settle();
    expect(s().progressEntries).toBeNull();
    expect(s().progressStatus).toBe('all');
    // Closed, nothing is read.
    await s().loadProgress();
    expect(office.callsOf('progress.list')).toHaveLength(1);
  });

  it('past midnight moves a calendar left on today, leaves a browsed one where it is, and closes an opened entry', async () => {
    office.answer('progress.get', (a) => entry((a as { id: string }).id, '2026-11-26'));
    s().openProgress('2026-11-26');
    await settle();
    await s().openEntry('e1');
    expect(s().openedEntry?.id).toBe('e1');
    s().rollToday('2026-11-27');
    expect([s().progressToday, s().progressMonth, s().progressDay, s().openedEntry]).toEqual([
      '2026-11-27',
      '2026-11',
      '2026-11-27',
      null,
    ]);
    await settle();
    expect(s().dayCaptures?.map((c) => c.label)).toEqual(['walk of 2026-11-27']);
    // Across a month's end too; a day the person picked stays.
    s().rollToday('2026-12-01');
    expect([s().progressMonth, s().progressDay]).toEqual(['2026-12', '2026-12-01']);
    s().pickDay('2026-12-01');
    s().setProgressMonth('2026-11');
    s().pickDay('2026-11-20');
    s().rollToday('2026-12-02');
    expect([s().progressToday, s().progressMonth, s().progressDay]).toEqual(['2026-12-02', '2026-11', '2026-11-20']);
  });

  it("counts a person's picks (each scrolls the day into view) and drops the captures of a day no longer shown", async () => {
    s().openProgress('2026-11-26');
    await settle();
    office.hold('queue.byDay');
    s().pickDay('2026-11-20');
    s().pickDay('2026-11-21');
    expect(s().progressDayPicks).toBe(2);
    expect(s().dayCaptures).toBeNull();
    office.release('queue.byDay', [capture('of the 20th')]);
    await settle();
    expect(s().dayCaptures).toBeNull();
    office.release('queue.byDay', [capture('of the 21st')]);
    await settle();
    expect(s().dayCaptures?.map((c) => c.label)).toEqual(['of the 21st']);
    // The same day again is not read again.
    s().pickDay('2026-11-21');
    expect(office.callsOf('queue.byDay')).toHaveLength(3);
  });

  it('puts a recorded entry in place (by id) and shows its day, wherever the calendar was', async () => {
    s().openProgress('2026-11-26');
    await settle();
    s().setProgressMonth('2026-09');
    s().applyRecorded({ ...entry('e1', '2026-10-30'), details: 'changed' });
    expect(s().progressEntries?.map((e) => [e.id, e.date])).toEqual([
      ['e2', '2026-10-30'],
      ['e1', '2026-10-30'],
    ]);
    expect([s().progressMonth, s().progressDay, s().progressDayPicks]).toEqual(['2026-10', '2026-10-30', 0]);
  });

  it("says why an entry or the month could not be read, and answers the month's file when it could", async () => {
    office.answer('progress.get', () => new Error('HTTP 404'));
    office.answer('progress.report', (a) =>
      (a as { month: string }).month === '2026-11'
        ? { fileName: 'progress-2026-11.csv', csv: 'Date\r\n' }
        : new Error('down'),
    );
    s().openProgress('2026-11-26');
    await settle();
    await s().openEntry('zz');
    expect(s().openedEntryProblem).toBe('Entry zz could not be read: HTTP 404');
    const exporting = s().exportMonth();
    expect(s().reportExporting).toBe(true);
    expect(await exporting).toEqual({ fileName: 'progress-2026-11.csv', csv: 'Date\r\n' });
    expect([s().reportExporting, s().reportProblem]).toEqual([false, null]);
    s().setProgressMonth('2026-10');
    expect(await s().exportMonth()).toBeNull();
    expect(s().reportProblem).toBe('The month could not be exported: down');
  });

  it("answers the progress sign-in's sentence, a failure of the call included, and never throws", async () => {
    office.answer('progress.signin', () => ({ signedIn: true, message: 'Signed in as ana@example.com.' }));
    expect(await s().checkProgressSignIn()).toEqual({ signedIn: true, message: 'Signed in as ana@example.com.' });
    office.answer('progress.signin', () => new Error('The upload service did not answer within 3 min'));
    expect(await s().checkProgressSignIn()).toEqual({
      signedIn: false,
      message: 'The upload service did not answer within 3 min',
    });
  });
});
