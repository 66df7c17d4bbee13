import { describe, expect, it } from 'vitest';
import { useTempQueue } from '../testing/kit.js';
import { fillQueue } from '../testing/fill-queue.js';
import type { UploadQueue } from '../queue/queue.js';
import { committedTotals } from '../queue/totals.js';
import { batchProgress, wholeQueueCounts } from '../../shared/batch-progress.js';
import { statusJsonDocument } from '../status/status-document.js';
import { statusOutput } from './status.js';

// Progress of this batch (docs/progress-batch.md): a second card added once the first is done
// starts at 0 %, whatever the queue kept from the first; status, status --json and the totals the
// screen and tray read all count the same files.

let q: UploadQueue;
useTempQueue('status-batch', (queue) => (q = queue));

/** The batch figures of today's card before any byte of it is sent, beside yesterday's 4 uploaded files. */
const TODAYS_CARD_UNSENT = {
  percent: 0,
  filesDone: 0,
  files: 2,
  bytesDone: 0,
  bytesTotal: 2048,
  earlier: 'Earlier: 4 files uploaded',
};

/** Yesterday's card: 2 captures, 4 files of 1 KiB, all uploaded. Today's card: 1 capture, 2 files, none sent. */
function yesterdayThenToday(): number[] {
  for (const id of fillQueue(q, 2)) q.moveFile(id, ['pending'], 'completed');
  return fillQueue(q, 1, 'b');
}

describe('progress of this batch', () => {
  it('a second card added after the first finished starts at 0 % in the totals, status and status --json', () => {
    yesterdayThenToday();
    const totals = committedTotals(q.totals());
    expect(totals).toMatchObject({ files: 2, completed: 0, bytesTotal: 2048, bytesDone: 0 });

    // What the window's bar and headline and the tray read (Overall.tsx, main.ts progressLine).
    expect(batchProgress(totals)).toEqual(TODAYS_CARD_UNSENT);

    // The queue's rows still count yesterday's (the filters, "Clear completed"): only the bar is the batch's.
    expect(wholeQueueCounts(totals)).toEqual({ files: 6, completed: 4 });

    const first = statusOutput(q, 'en-GB')[0]!;
    expect(first).toMatch(/ · 0% · 0 B of 2\.0 KiB stored · Earlier: 4 files uploaded$/);

    const doc = JSON.parse(statusJsonDocument(q, 'en-GB')) as {
      state: { bytesDone: number; bytesTotal: number };
      captures: unknown[];
    };
    expect(doc.state).toMatchObject(TODAYS_CARD_UNSENT);
    // Every capture is still listed: only the batch's figures leave yesterday's out.
    expect(doc.captures).toHaveLength(3);
  });

  it('the second card finished says all of its files, not yesterday’s', () => {
    for (const id of yesterdayThenToday()) q.moveFile(id, ['pending'], 'completed');
    expect(statusOutput(q, 'en-GB')[0]).toMatch(/^All 2 files uploaded · 100% · 2\.0 KiB of 2\.0 KiB stored/);
  });

  it('a card added while the first still uploads joins its batch', () => {
    const first = fillQueue(q, 2);
    q.moveFile(first[0]!, ['pending'], 'completed');
    fillQueue(q, 1, 'b');
    expect(committedTotals(q.totals())).toMatchObject({ files: 6, completed: 1, bytesTotal: 6144, bytesDone: 1024 });
  });

  it('a file of an earlier batch queued again counts in this batch', () => {
    const [a] = fillQueue(q, 1);
    q.moveFile(a!, ['pending'], 'cancelled');
    q.moveFile(q.filesOf(q.file(a!)!.captureRow)[1]!.id, ['pending'], 'completed');
    fillQueue(q, 1, 'b');
    q.moveFile(a!, ['cancelled'], 'pending');
    expect(committedTotals(q.totals())).toMatchObject({ files: 3, completed: 0, bytesTotal: 3072 });
  });
});
