import type { QueueFile, QueueTotals } from '../ipc.js';

/**
 * Rows of the queue's view (shared/ipc.ts) as tests of the screen and its store write them: every
 * field given, zero or empty unless the test says otherwise. Test code only: nothing the app runs
 * imports it.
 */

/** Queue totals (counts of files and captures, bytes, bytes/s), all 0 but those in `x`. */
export const queueTotals = (x: Partial<QueueTotals> = {}): QueueTotals => ({
  files: 0,
  captures: 0,
  completed: 0,
  uploading: 0,
  queued: 0,
  retrying: 0,
  paused: 0,
  failed: 0,
  cancelled: 0,
  needYou: 0,
  bytesTotal: 0,
  bytesDone: 0,
  bytesRemaining: 0,
  bytesPerSecond: 0,
  ...x,
});

/** A queue file in `state` with `x` over it: nothing sent, one part, no error, no retry. */
export const queueFile = (state: QueueFile['state'], x: Partial<QueueFile> = {}): QueueFile => ({
  id: 1,
  captureRow: 1,
  fileName: 'f1',
  path: '/f1',
  size: 10,
  state,
  error: null,
  bytesSent: 0,
  partsDone: 0,
  partsTotal: 1,
  bytesPerSecond: 0,
  etaSeconds: null,
  retryAt: null,
  attempts: 0,
  ...x,
});
