import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Announcer, formatSize } from './announcer.js';
import type { EngineEvent } from '../engine/events.js';
import type { QueuedCapture, QueuedFile } from '../queue/queue.js';

// Quiet nights: only what a person must act on is notified, gathered into one
// notification, plus one "Queue finished" when the queue drained. Asserted as the exact
// notifications, in order.

const file = (
  fileName: string,
  state: 'completed' | 'failed' | 'pending',
  size = 0,
  error: string | null = null,
  transient = false,
): EngineEvent => ({
  type: 'file',
  fileId: 1,
  captureRow: 1,
  fileName,
  state,
  error,
  transient,
  file: { size } as QueuedFile,
});
const capture = (
  label: string,
  state: 'rejected' | 'registration_unknown' | 'queued',
  error: string | null = null,
): EngineEvent => ({
  type: 'capture',
  captureRow: 1,
  label,
  state,
  error,
  capture: {} as QueuedCapture,
});

let sent: [string, string][];
let a: Announcer;
beforeEach(() => {
  vi.useFakeTimers();
  sent = [];
  a = new Announcer((title, body) => sent.push([title, body]), 2000);
});
afterEach(() => {
  a.close();
  vi.useRealTimers();
});

describe('what needs a person, gathered', () => {
  it("one failure: one notification with its name and the service's message, after the gathering time", () => {
    a.onEngine(file('a.insv', 'failed', 0, 'Storage refused the file (HTTP 400)'));
    vi.advanceTimersByTime(1999);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([['Upload needs you', 'a.insv: Storage refused the file (HTTP 400)']]);
  });

  it('five failures and a refused capture within the gathering time: one notification naming three and the rest counted', () => {
    for (const n of ['a', 'b', 'c', 'd', 'e']) a.onEngine(file(`${n}.insv`, 'failed', 0, 'gone'));
    a.onEngine(capture('Walk 3', 'rejected'));
    vi.advanceTimersByTime(2000);
    expect(sent).toEqual([
      ['6 uploads need you', 'a.insv, b.insv, c.insv and 3 more. Open the queue\'s "Needs you" list to see why.'],
    ]);
  });

  it('a passing failure, a queued capture and a pending file are never announced', () => {
    a.onEngine(file('a.insv', 'pending', 0, 'No answer from the service: ECONNRESET', true));
    a.onEngine(capture('Walk 1', 'queued', 'The service answered 503'));
    vi.advanceTimersByTime(10_000);
    a.drained({ failed: 0, capturesNeedYou: 0 });
    expect(sent).toEqual([]);
  });

  it('a registration not confirmed says so when the service gave no message', () => {
    a.onEngine(capture('Walk 2', 'registration_unknown'));
    a.flush();
    expect(sent).toEqual([['Upload needs you', 'Walk 2: registration not confirmed']]);
  });

  it('close() drops what is gathered: nothing is sent after the app closed', () => {
    a.onEngine(file('a.insv', 'failed', 0, 'gone'));
    a.close();
    vi.advanceTimersByTime(5000);
    expect(sent).toEqual([]);
  });
});

describe('Queue finished', () => {
  it('drained: first what is gathered, then one summary of the files completed since the last one', () => {
    a.onEngine(file('a.insv', 'completed', 40_000_000_000));
    a.onEngine(file('b.insv', 'completed', 1_200_000_000));
    a.onEngine(file('c.insv', 'failed', 0, 'changed while uploading'));
    a.drained({ failed: 1, capturesNeedYou: 1 }, new Date(2026, 10, 25, 4, 12));
    expect(sent).toEqual([
      ['Upload needs you', 'c.insv: changed while uploading'],
      ['Queue finished', 'Queue finished at 04:12: 2 files, 41.2 GB; 2 need you.'],
    ]);
    // Nothing completed since: a second drain says nothing.
    a.drained({ failed: 1, capturesNeedYou: 1 });
    expect(sent).toHaveLength(2);
  });

  it('says the captures with warnings, as status and the summary do', () => {
    a.onEngine(file('walk.mp4', 'completed', 2_097_152));
    a.drained({ failed: 0, capturesNeedYou: 0, capturesWarned: 2 }, new Date(2026, 10, 25, 4, 12));
    expect(sent).toEqual([['Queue finished', 'Queue finished at 04:12: 1 file, 2.1 MB; 2 captures with warnings.']]);
  });

  it('one file, nobody needed', () => {
    a.onEngine(file('walk.mp4', 'completed', 2_097_152));
    a.drained({ failed: 0, capturesNeedYou: 0 }, new Date(2026, 10, 25, 23, 5));
    expect(sent).toEqual([['Queue finished', 'Queue finished at 23:05: 1 file, 2.1 MB.']]);
  });

  it.each([
    [999, '999 B'],
    [1000, '1.0 kB'],
    [41_200_000_000, '41.2 GB'],
    [3e15, '3000.0 TB'],
  ])('formatSize(%d) is %s', (bytes, text) => expect(formatSize(bytes)).toBe(text));
});
