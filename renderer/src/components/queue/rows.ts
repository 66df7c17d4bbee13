import type { QueueCapture, QueueFile } from '../../../../shared/ipc.js';
import type { QueueFilter } from '../../queue-slice.js';

/** The list-item attributes react-window gives each row (role, position in the set). */
export type RowAria = { 'aria-posinset': number; 'aria-setsize': number; role: 'listitem' };

/** One line of the queue list: a capture, or one of its files nested under it. */
export type QueueRow = { kind: 'capture'; id: number } | { kind: 'file'; id: number };

/**
 * Every line's height in px. One height for captures and files: react-window sizes a list of
 * varying heights by an estimate that is only right once every row was seen, so scrolling to the
 * end of 10,000 files would land short; an opened cause shows over the rows below instead.
 */
export const ROW_HEIGHT = 60;

/** Capture states in which nothing moves until a person decides. */
export const captureNeedsYou = (c: QueueCapture) => c.state === 'registration_unknown' || c.state === 'rejected' || c.state === 'failed';

/** Whether a file waits to be tried again by itself (a passing failure, with its retry time). */
export const retrying = (f: QueueFile) => f.state === 'pending' && f.retryAt !== null;

/**
 * What a registered capture is doing, from its files: "Uploading" while any file moves;
 * "Retrying at 14:11" when every file left waits for a retry time (the earliest, local time);
 * "Paused" when what is left is paused; "Needs you" when a file failed and nothing else moves;
 * otherwise "Waiting to upload". `clock` formats a time (ms since the epoch) as HH:MM, or null
 * when it is due or past: then "Retrying now" (a retry time is never shown in the past, issue 18 #1).
 */
export function registeredCaptureState(files: readonly QueueFile[], clock: (ms: number) => string | null): string {
  const left = files.filter((f) => f.state !== 'completed' && f.state !== 'cancelled');
  if (left.length === 0) return 'Completed';
  if (left.some((f) => f.state === 'uploading')) return 'Uploading';
  const waiting = left.filter((f) => f.state === 'pending' || f.state === 'waiting');
  if (waiting.length > 0 && waiting.every(retrying)) {
    const when = clock(Math.min(...waiting.map((f) => f.retryAt!)));
    return when === null ? 'Retrying now' : `Retrying at ${when}`;
  }
  if (waiting.length > 0) return 'Waiting to upload';
  if (left.some((f) => f.state === 'failed')) return 'Needs you';
  return 'Paused';
}

function fileMatches(f: QueueFile, filter: QueueFilter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'completed':
      return f.state === 'completed';
    case 'needs-you':
      return f.state === 'failed';
    case 'active':
      // What moves by itself: uploading, waiting for its turn or registration, or for a retry time.
      // A paused file waits for a person's Resume: it is under "All", not here.
      return f.state === 'uploading' || f.state === 'pending' || f.state === 'waiting';
  }
}

/** Whether every file of a capture is done (completed or cancelled): it goes after the captures still at work. */
function captureDone(ids: readonly number[], files: Record<number, QueueFile>): boolean {
  return ids.length > 0 && ids.every((id) => files[id]?.state === 'completed' || files[id]?.state === 'cancelled');
}

/**
 * The list's lines under a filter: each capture with its matching files nested under it; a
 * capture that needs a person counts as "needs you" with all its files. Captures with no
 * matching line are left out. Captures still at work come first, completed ones after them, each
 * group in queue order (issue 18 #6: what moves is at the top, not below a night of completed ones).
 */
export function queueRows(
  order: readonly number[],
  filesOf: Record<number, number[]>,
  captures: Record<number, QueueCapture>,
  files: Record<number, QueueFile>,
  filter: QueueFilter,
): QueueRow[] {
  const rows: QueueRow[] = [];
  const done = order.filter((c) => captureDone(filesOf[c] ?? [], files));
  const doneSet = new Set(done);
  for (const c of [...order.filter((c) => !doneSet.has(c)), ...done]) {
    const capture = captures[c];
    if (!capture) continue;
    const ids = filesOf[c] ?? [];
    const whole = (filter === 'needs-you' || filter === 'active') && captureNeedsYou(capture) ? filter === 'needs-you' : undefined;
    const shown = whole === undefined ? ids.filter((id) => files[id] && fileMatches(files[id], filter)) : whole ? ids : [];
    if (shown.length === 0 && !(filter === 'all' || whole)) continue;
    rows.push({ kind: 'capture', id: c });
    for (const id of shown) rows.push({ kind: 'file', id });
  }
  return rows;
}
