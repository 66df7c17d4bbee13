import type { QueueTotals } from './ipc.js';

/**
 * The batch's progress as every place shows it (the window's headline and bar, the tray
 * tooltip, the taskbar, `capture-uploader status` and `status --json`): `percent` (0–100, whole,
 * rounded down) of the bytes storage acknowledged, `filesDone` of `files` (cancelled ones left
 * out), `bytesDone` of `bytesTotal` (bytes), and `earlier` ("Earlier: 195 files uploaded") for
 * the files earlier batches completed, null when none. The batch is the captures added since the
 * queue last held no unfinished file (docs/progress-batch.md); the totals are already its figures.
 */
export interface BatchProgress {
  percent: number;
  filesDone: number;
  files: number;
  bytesDone: number;
  bytesTotal: number;
  earlier: string | null;
}

/** The batch's progress from its totals (shared/ipc.ts QueueTotals), the one place it is computed. */
export function batchProgress(t: QueueTotals): BatchProgress {
  const earlier = t.earlier?.files ?? 0;
  return {
    percent: t.bytesTotal ? Math.floor((t.bytesDone / t.bytesTotal) * 100) : 0,
    filesDone: t.completed,
    files: t.files - t.cancelled,
    bytesDone: t.bytesDone,
    bytesTotal: t.bytesTotal,
    earlier: earlier > 0 ? `Earlier: ${earlier.toLocaleString('en')} file${earlier === 1 ? '' : 's'} uploaded` : null,
  };
}

/**
 * The whole queue's counts, earlier batches included, where the rows are counted rather than the
 * batch's progress (the filters "All (n)" and "Completed (n)", "Clear completed", whether the
 * queue holds anything): `files` every file in the queue, `completed` every completed one.
 */
export function wholeQueueCounts(t: QueueTotals): { files: number; completed: number } {
  const earlier = t.earlier?.files ?? 0;
  return { files: t.files + earlier, completed: t.completed + earlier };
}
