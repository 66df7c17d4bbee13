import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoreApi, UseBoundStore } from 'zustand';
import type { OutboxItemView } from '../../shared/ipc.js';
import type { OfficeState } from './office-test-api.js';
import { OfficeApi, officeStore } from './office-test-api.js';

// The office's timers on a fake clock, over the office slices and a stand-in window.api: when the
// entries are read again, when today moves on, when a discard is carried out, and that stopping
// leaves nothing running.
const office = new OfficeApi();
let store: UseBoundStore<StoreApi<OfficeState>>;
let timers: typeof import('./office-timers.js');
let UNDO_MS: number;
const s = () => store.getState();
beforeAll(async () => {
  store = await officeStore(office);
  timers = await import('./office-timers.js');
  ({ UNDO_MS } = await import('./outbox-slice.js'));
});

let offline = false;
let outbox: OutboxItemView[] = [];
const kept: OutboxItemView = {
  id: 3,
  date: '2026-11-26',
  status: 'Completed',
  details: 'kept',
  queuedAt: '2026-11-26T09:00:00Z',
  state: 'waiting',
  error: null,
  field: null,
};
const reads = () => office.callsOf('progress.list').length;
/** Lets the fake clock run `ms`, with the answers of the calls made meanwhile. */
const run = (ms: number) => vi.advanceTimersByTimeAsync(ms);

beforeEach(() => {
  // 26 November 2026, 23:59:00 local time.
  vi.useFakeTimers({ now: new Date(2026, 10, 26, 23, 59, 0) });
  office.calls.length = 0;
  office.held.length = 0;
  office.hold('progress.list', false);
  offline = false;
  outbox = [];
  office.answer('queue.byDay', () => []);
  office.answer('progress.discard', () => true);
  office.answer('progress.list', () => ({
    entries: [],
    project: 'p1',
    projectName: '',
    outbox,
    asOf: '2026-11-26T09:12:00Z',
    offline,
    offlineReason: offline ? 'ECONNRESET' : null,
  }));
});
afterEach(() => {
  vi.clearAllTimers();
  vi.useRealTimers();
});

describe("the office's timers", () => {
  it('read the entries again every 15 s while offline or while entries wait, skip a tick while a read is in flight, and stop when all is sent', async () => {
    offline = true;
    const stop = timers.followProgress(store);
    await run(0);
    expect(reads()).toBe(1);
    await run(timers.PROGRESS_RETRY_MS);
    expect(reads()).toBe(2);
    // Back, with an entry still waiting: still read again.
    offline = false;
    outbox = [kept];
    await run(timers.PROGRESS_RETRY_MS);
    expect(reads()).toBe(3);
    office.hold('progress.list');
    await run(timers.PROGRESS_RETRY_MS);
    expect(reads()).toBe(4);
    await run(timers.PROGRESS_RETRY_MS);
    expect(reads()).toBe(4);
    // Sent: nothing waits, and the reads stop.
    outbox = [];
    office.release('progress.list', {
      entries: [],
      project: 'p1',
      projectName: '',
      outbox: [],
      asOf: '2026-11-26T09:13:00Z',
      offline: false,
      offlineReason: null,
    });
    office.hold('progress.list', false);
    await run(timers.PROGRESS_RETRY_MS * 4);
    expect(reads()).toBe(4);
    stop();
  });

  it('move today on just after local midnight, and on focus after a sleep', async () => {
    // 23:58:30: the minute's checks come at 23:59:30 and 00:00:30, the midnight timer at 00:00:01.
    vi.setSystemTime(new Date(2026, 10, 26, 23, 58, 30));
    const stop = timers.followProgress(store);
    await run(0);
    expect(s().progressToday).toBe('2026-11-26');
    await run(90_000);
    expect(s().progressToday).toBe('2026-11-26');
    await run(1_000);
    expect([s().progressToday, s().progressDay]).toEqual(['2026-11-27', '2026-11-27']);
    // A sleep over a whole day, the timers late: the window's focus says the day at once.
    vi.setSystemTime(new Date(2026, 10, 29, 8, 0, 0));
    window.dispatchEvent(new Event('focus'));
    expect(s().progressToday).toBe('2026-11-29');
    vi.setSystemTime(new Date(2026, 10, 30, 8, 0, 0));
    document.dispatchEvent(new Event('visibilitychange'));
    expect(s().progressToday).toBe('2026-11-30');
    stop();
  });

  it('carry out a discard when its undo time passes, and one still pending when the workspace closes', async () => {
    outbox = [kept, { ...kept, id: 4 }];
    const stop = timers.followProgress(store);
    await run(0);
    s().discardOutbox(s().outbox[0]!);
    await run(UNDO_MS - 1);
    expect(office.callsOf('progress.discard')).toEqual([]);
    await run(1);
    expect(office.callsOf('progress.discard').map((c) => c.args)).toEqual([{ id: 3 }]);
    // Taken back: never carried out.
    s().discardOutbox(s().outbox[1]!);
    s().undoDiscard();
    await run(UNDO_MS * 2);
    expect(office.callsOf('progress.discard')).toHaveLength(1);
    s().discardOutbox(s().outbox[1]!);
    stop();
    await run(0);
    expect(office.callsOf('progress.discard').map((c) => c.args)).toEqual([{ id: 3 }, { id: 4 }]);
  });

  it('leave nothing running once stopped: no read, no day moved, no discard again', async () => {
    offline = true;
    const stop = timers.followProgress(store);
    await run(0);
    s().discardOutbox({ ...kept, id: 5 });
    stop();
    expect(vi.getTimerCount()).toBe(0);
    await run(0);
    const calls = office.calls.length;
    await run(24 * 3_600_000);
    window.dispatchEvent(new Event('focus'));
    expect(office.calls.length).toBe(calls);
    expect(vi.getTimerCount()).toBe(0);
    expect(s().progressEntries).toBeNull();
  });
});
