import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UploadQueue } from '../../queue/queue.js';
import { fillQueue } from '../../testing/fill-queue.js';
import { tempQueue } from '../../testing/kit.js';
import { PartLedger } from './ledger.js';

// Accepted parts reach the queue in one transaction per burst, at most `delayMs` after the first;
// flush() writes at once; a failed write keeps them buffered for the next flush.

let t: ReturnType<typeof tempQueue>;
let q: UploadQueue;
let ids: number[];
beforeEach(() => {
  t = tempQueue('ledger');
  q = t.queue;
  ids = fillQueue(q, 1);
});
afterEach(() => {
  vi.useRealTimers();
  t.close();
});

const etags = () => ids.map((id) => q.parts(id).map((p) => p.etag));

describe('PartLedger', () => {
  it('parts accepted close together are written in one transaction after delayMs, not before', () => {
    vi.useFakeTimers();
    const writes = vi.spyOn(q, 'recordParts');
    const ledger = new PartLedger(q, 100);
    ledger.add(ids[0]!, 1, '"a"');
    vi.advanceTimersByTime(60);
    ledger.add(ids[1]!, 1, '"b"');
    vi.advanceTimersByTime(39);
    expect(etags()).toEqual([[null], [null]]);
    vi.advanceTimersByTime(1);
    expect(etags()).toEqual([['"a"'], ['"b"']]);
    expect(writes).toHaveBeenCalledTimes(1);
    expect(writes.mock.calls[0]![0]).toEqual([
      { fileId: ids[0], partNumber: 1, etag: '"a"' },
      { fileId: ids[1], partNumber: 1, etag: '"b"' },
    ]);
  });

  it('flush() writes at once and the timer then writes nothing more', () => {
    vi.useFakeTimers();
    const writes = vi.spyOn(q, 'recordParts');
    const ledger = new PartLedger(q, 100);
    ledger.add(ids[0]!, 1, '"a"');
    ledger.flush();
    expect(etags()).toEqual([['"a"'], [null]]);
    vi.advanceTimersByTime(1000);
    expect(writes).toHaveBeenCalledTimes(1);
  });

  it('a write that fails keeps the parts buffered; the next flush writes them', () => {
    const ledger = new PartLedger(q, 100);
    const writes = vi.spyOn(q, 'recordParts').mockImplementationOnce(() => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    });
    ledger.add(ids[0]!, 1, '"a"');
    expect(() => ledger.flush()).toThrow(/disk is full/);
    expect(etags()).toEqual([[null], [null]]);
    ledger.add(ids[1]!, 1, '"b"');
    ledger.flush();
    expect(etags()).toEqual([['"a"'], ['"b"']]);
    expect(writes).toHaveBeenCalledTimes(2);
  });

  it('a timed write that fails reaches onError, with nobody else to throw to', () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    const ledger = new PartLedger(q, 100, (err) => errors.push(err));
    vi.spyOn(q, 'recordParts').mockImplementationOnce(() => {
      throw new Error('attempt to write a readonly database');
    });
    ledger.add(ids[0]!, 1, '"a"');
    vi.advanceTimersByTime(100);
    expect(errors.map((e) => (e as Error).message)).toEqual(['attempt to write a readonly database']);
    ledger.flush();
    expect(etags()).toEqual([['"a"'], [null]]);
  });
});
