import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UploadQueue } from '../../queue/queue.js';
import { fillQueue } from '../../testing/fill-queue.js';
import { tempQueue } from '../../testing/kit.js';
import type { EngineEvent } from '../events.js';
import { MAX_PARTS, Transitions, captureTooLarge } from './transitions.js';
import { setFileState } from '../../testing/queue-backdoors.js';
import { enqueueOne, oneFileRequest } from '../../testing/queue-rows.js';

// The one way the engine changes the queue: the row and its activity line commit together, and
// only then are they announced, in that order; a move from a state the row is no longer in
// changes nothing and says nothing.

let t: ReturnType<typeof tempQueue>;
let q: UploadQueue;
let events: EngineEvent[];
let tr: Transitions;
beforeEach(() => {
  t = tempQueue('transitions');
  q = t.queue;
  events = [];
  tr = new Transitions(q, (e) => events.push(e));
});
afterEach(() => t.close());

/** The events as [type, what] pairs: a file's or capture's state, an activity line's kind, a removal's ids. */
const said = () =>
  events.map((e) => {
    if (e.type === 'file') return ['file', e.fileId, e.state];
    if (e.type === 'capture') return ['capture', e.captureRow, e.state];
    if (e.type === 'activity') return ['activity', e.entry.kind, e.entry.message];
    if (e.type === 'removed') return ['removed', e.captureRow, e.fileIds];
    return [e.type];
  });

describe('file moves', () => {
  it('a move commits the row and its line, then announces the committed row before the line', () => {
    const [a] = fillQueue(q, 1);
    expect(tr.file(a!, ['pending'], 'uploading', { error: null }, { kind: 'started', message: 'Upload started' })).toBe(
      true,
    );
    expect(q.file(a!)!.state).toBe('uploading');
    expect(q.activity.list().map((l) => [l.fileId, l.kind, l.message])).toEqual([[a, 'started', 'Upload started']]);
    expect(said()).toEqual([
      ['file', a, 'uploading'],
      ['activity', 'started', 'Upload started'],
    ]);
    const fileEvent = events[0] as Extract<EngineEvent, { type: 'file' }>;
    expect(fileEvent.file).toEqual(q.file(a!));
  });

  it('a move from a state the row left (a person paused it meanwhile) changes nothing and says nothing', () => {
    const [a] = fillQueue(q, 1);
    setFileState(q, a!, 'paused');
    expect(
      tr.file(
        a!,
        ['uploading'],
        'pending',
        { error: 'reset', retryAt: Date.now() + 60_000, transient: true },
        { kind: 'retry-scheduled', message: 'later' },
      ),
    ).toBe(false);
    expect(q.file(a!)).toMatchObject({ state: 'paused', error: null, attempts: 0 });
    expect(q.activity.list()).toEqual([]);
    expect(events).toEqual([]);
  });

  it('a passing failure keeps its cause, its retry time, and counts the attempt', () => {
    const [a] = fillQueue(q, 1);
    tr.file(a!, ['pending'], 'uploading');
    const at = Date.now() + 15_000;
    tr.file(a!, ['uploading'], 'pending', {
      error: 'No answer from storage: ECONNRESET',
      retryAt: at,
      transient: true,
    });
    expect(q.file(a!)).toMatchObject({
      state: 'pending',
      error: 'No answer from storage: ECONNRESET',
      transient: true,
      attempts: 1,
    });
    expect(q.schedule.nextDueAt()).toBe(at);
    expect(q.schedule.dueFiles(Date.now(), 10).map((f) => f.id)).not.toContain(a);
  });

  it('parts storage no longer holds: their ETags forgotten with one line, the loss announced once with its bytes', () => {
    const [a, b] = fillQueue(q, 1);
    q.recordParts([
      { fileId: a!, partNumber: 1, etag: '"a1"' },
      { fileId: b!, partNumber: 1, etag: '"b1"' },
    ]);
    const f = q.file(a!)!;
    tr.partsLost(f, []);
    expect(events).toEqual([]);
    tr.partsLost(f, [{ partNumber: 1, size: 3 * 1024 ** 2 }]);
    expect(q.parts(a!).map((p) => p.etag)).toEqual([null]);
    expect(q.parts(b!).map((p) => p.etag)).toEqual(['"b1"']);
    const message = 'Storage no longer holds part 1 (3.0 MiB) it had confirmed; sending it again';
    expect(q.activity.list().map((l) => [l.fileId, l.kind, l.message])).toEqual([[a, 'parts-lost', message]]);
    expect(events[0]).toEqual({
      type: 'lost',
      fileId: a,
      captureRow: f.captureRow,
      fileName: f.fileName,
      partNumbers: [1],
      bytes: 3 * 1024 ** 2,
    });
    expect(said()).toEqual([['lost'], ['activity', 'parts-lost', message]]);
  });

  it('removing one file deletes its row only, says so once, and a second removal answers false', () => {
    const [a, b] = fillQueue(q, 1);
    const row = q.file(a!)!.captureRow;
    expect(tr.removeFile(a!)).toBe(true);
    expect([q.file(a!), q.file(b!)?.id, q.capture(row)?.id]).toEqual([undefined, b, row]);
    expect(q.activity.list().map((l) => [l.fileId, l.kind])).toEqual([[a, 'removed']]);
    expect(said()).toEqual([
      ['removed', row, [a]],
      ['activity', 'removed', "Removed from this computer's queue; nothing at the platform changed"],
    ]);
    expect(tr.removeFile(a!)).toBe(false);
    expect(events).toHaveLength(2);
  });
});

describe('captures', () => {
  it('a capture move commits the row and its line, then announces them; a move from a state it left says nothing', () => {
    const [a] = fillQueue(q, 1);
    const row = q.file(a!)!.captureRow;
    const from = q.capture(row)!.state;
    expect(tr.capture(row, [from], 'failed', 'refused', undefined, { kind: 'failed', message: 'refused' })).toBe(true);
    expect(q.capture(row)).toMatchObject({ state: 'failed', error: 'refused' });
    expect(q.activity.list().map((l) => [l.captureRow, l.fileId, l.kind, l.message])).toEqual([
      [row, null, 'failed', 'refused'],
    ]);
    expect(said()).toEqual([
      ['capture', row, 'failed'],
      ['activity', 'failed', 'refused'],
    ]);
    expect(tr.capture(row, [from], 'queued', null)).toBe(false);
    expect(q.capture(row)!.state).toBe('failed');
    expect(events).toHaveLength(2);
    // Without a note: the row and its announcement, no line.
    expect(tr.capture(row, ['failed'], 'queued', null)).toBe(true);
    expect(said().slice(2)).toEqual([['capture', row, 'queued']]);
    expect(q.activity.list()).toHaveLength(1);
  });

  it('completes a capture once every file is completed, with one line, and only once', () => {
    const [a, b] = fillQueue(q, 1);
    const row = q.file(a!)!.captureRow;
    tr.file(a!, ['pending'], 'completed');
    tr.completeCaptureIfDone(row);
    expect(q.capture(row)!.state).not.toBe('completed');
    tr.file(b!, ['pending'], 'completed');
    tr.completeCaptureIfDone(row);
    tr.completeCaptureIfDone(row);
    expect(q.capture(row)!.state).toBe('completed');
    expect(q.activity.list().map((l) => l.kind)).toEqual(['capture-completed']);
    expect(said().slice(-2)).toEqual([
      ['capture', row, 'completed'],
      ['activity', 'capture-completed', 'Every file of the capture is uploaded'],
    ]);
  });

  it('completing a capture no longer in the queue does nothing', () => {
    const [a] = fillQueue(q, 1);
    const row = q.file(a!)!.captureRow;
    tr.removeCapture(row);
    events.length = 0;
    tr.completeCaptureIfDone(row);
    expect(events).toEqual([]);
  });

  it('removing a capture deletes its rows and names every file it held', () => {
    const [a, b] = fillQueue(q, 1);
    const row = q.file(a!)!.captureRow;
    expect(tr.removeCapture(row)).toBe(true);
    expect([q.capture(row), q.file(a!), q.file(b!)]).toEqual([undefined, undefined, undefined]);
    expect(said()).toEqual([
      ['removed', row, [a, b]],
      ['activity', 'removed', "Removed from this computer's queue; nothing at the platform changed"],
    ]);
    expect(tr.removeCapture(row)).toBe(false);
    expect(events).toHaveLength(2);
  });

  it("a registration answer needing more than 10,000 parts fails the capture's files before any byte is sent", () => {
    const huge = { path: '/card/huge.mp4', size: 60 * 1024 ** 3, mtimeMs: 0 };
    const row = enqueueOne(q, 'huge', oneFileRequest(huge), huge);
    tr.registered(q.capture(row)!, {
      capture: { captureId: 'cap-huge' },
      uploadManifest: [
        {
          frameIndex: 1,
          uploadId: 'u-huge',
          fileName: 'huge.mp4',
          size: 60 * 1024 ** 3,
          partSize: 5 * 1024 ** 2,
          totalParts: MAX_PARTS + 2288,
          status: 'initiated',
        },
      ],
    } as never);
    const [f] = q.filesOf(row);
    expect(f!.state).toBe('failed');
    expect(f!.error).toMatch(
      /^huge\.mp4 would need 12,288 parts of 5 MiB and storage allows 10,000 \(48\.8 GiB\), so nothing of it was sent: split/,
    );
    expect(said()).toEqual([
      ['capture', row, q.capture(row)!.state],
      ['file', f!.id, 'failed'],
      ['activity', 'registered', 'Registered as capture cap-huge'],
      ['activity', 'failed', f!.error],
    ]);
  });
});

describe('captureTooLarge', () => {
  const file = (totalParts: number) => ({
    fileName: 'a.insv',
    size: totalParts * 5 * 1024 ** 2,
    partSize: 5 * 1024 ** 2,
    totalParts,
  });
  it('lets a file of exactly 10,000 parts through and names one over it, with every file of the capture', () => {
    expect(captureTooLarge([file(MAX_PARTS), file(1)])).toBeUndefined();
    expect(captureTooLarge([file(1), file(MAX_PARTS + 1)])).toMatch(
      /^a\.insv would need 10,001 parts of 5 MiB and storage allows 10,000 \(48\.8 GiB\), so none of the capture's 2 files was sent: /,
    );
  });
});
