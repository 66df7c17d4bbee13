import { describe, expect, it } from 'vitest';
import { useTempQueue } from '../testing/kit.js';
import type { UploadQueue } from './queue.js';
import { fillQueue } from '../testing/fill-queue.js';

// The queue in numbers as committed: every count and byte figure of StoredTotals, from rows set
// up in each state the totals tell apart.

let q: UploadQueue;
useTempQueue('totals', (queue) => (q = queue));

describe('storedTotals', () => {
  it('an empty queue is all zeros', () => {
    const { nextRetryAt, cardWait, ...counts } = q.totals();
    expect(nextRetryAt).toBeNull();
    expect(cardWait).toEqual({ cards: 0, recordings: 0, names: [] });
    expect(Object.values(counts).every((v) => v === 0)).toBe(true);
  });

  it('counts files by state, retrying apart from pending, and bytes per the rules', () => {
    // 5 captures of two 1 KiB files each (one part each).
    const [a, b, c, d, e, f, , , i] = fillQueue(q, 5);
    q.moveFile(a!, ['pending'], 'completed');
    q.moveFile(b!, ['pending'], 'uploading');
    q.recordParts([{ fileId: b!, partNumber: 1, etag: '"b"' }]); // stored, not yet reported
    const retryAt = Date.now() + 60_000;
    q.moveFile(c!, ['pending'], 'pending', { error: 'ECONNRESET', retryAt, transient: true });
    q.moveFile(d!, ['pending'], 'paused');
    q.moveFile(e!, ['pending'], 'failed', { error: 'changed while uploading' });
    q.moveFile(f!, ['pending'], 'cancelled');
    // The 7th to 10th files stay pending; the capture of the 9th and 10th was refused (it needs a person).
    q.setCaptureState(q.file(i!)!.captureRow, 'rejected', 'Structure not found');

    expect(q.totals()).toEqual({
      files: 10,
      captures: 5,
      completed: 1,
      uploading: 1,
      waiting: 0,
      pending: 4, // the 7th to 10th
      retrying: 1, // c
      paused: 1,
      failed: 1,
      cancelled: 1,
      capturesNeedYou: 1,
      capturesWarned: 0, // no warning in the activity log
      bytesTotal: 9 * 1024, // all but the cancelled one
      bytesStored: 2 * 1024, // a whole, b's stored part
      bytesStoredUploading: 1024, // b
      bytesOfMoving: 6 * 1024, // b, c and the 7th to 10th
      bytesStoredOfMoving: 1024, // b
      nextRetryAt: retryAt, // c's, the only one waiting for a time
      cardWait: { cards: 0, recordings: 0, names: [] }, // no card pulled out (removed-cards.test.ts)
      earlierFiles: 0, // one batch (main/cli/status-batch.test.ts)
      earlierBytes: 0,
      batchFrom: 1, // the first capture opened the batch
    });
  });
});
