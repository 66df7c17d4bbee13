import type { QueueCapture, QueueFile, QueueOutage } from '../../../../shared/ipc.js';
import { WAITING_FOR } from '../../../../shared/causes.js';
import { retryWait } from '../../../../shared/queue-state.js';
import type { Folding, QueueFilter } from '../../queue-slice.js';

/** The list-item attributes react-window gives each row (role, position in the set). */
export type RowAria = { 'aria-posinset': number; 'aria-setsize': number; role: 'listitem' };

/**
 * One line of the queue list: a capture, one of its files nested under it (when the capture is
 * opened), or a batch of completed captures folded into one line (`key`: the batch, `ids` its captures).
 */
export type QueueRow =
  | { kind: 'capture'; id: number }
  | { kind: 'file'; id: number }
  | { kind: 'batch'; key: string; ids: number[]; open: boolean };

/** Everything open: every capture's files listed under it, no batch folded. */
const UNFOLDED: Folding = { detailed: true, open: {}, openBatches: {} };

/**
 * Every line's height in px. One height for captures and files: react-window sizes a list of
 * varying heights by an estimate that is only right once every row was seen, so scrolling to the
 * end of 10,000 files would land short; an opened cause shows over the rows below instead.
 * 48 px keeps at least six captures in view at 820×560.
 */
export const ROW_HEIGHT = 48;

/**
 * The batch a completed capture is folded into: the captures of one structure recorded on one day
 * (one card, as a site walk's day is carried home on one card). `capturedAt` is ISO 8601 with zone;
 * its date as written (the site's date).
 */
const batchKey = (c: QueueCapture) => `${c.structure}|${c.capturedAt.slice(0, 10)}`;

/** What a file or capture held by an outage says (the headline's words, shared/queue-state.ts). */
const outageWords = (where: QueueOutage['where']) => WAITING_FOR[where];

/** Capture states in which nothing moves until a person decides. */
export const captureNeedsYou = (c: QueueCapture) =>
  c.state === 'registration_unknown' || c.state === 'rejected' || c.state === 'failed';

/** Whether a file waits to be tried again by itself (a passing failure, with its retry time). */
export const retrying = (f: QueueFile) => f.state === 'pending' && f.retryAt !== null;

/**
 * What a registered capture is doing, from its files: "Uploading" while any file moves
 * ("Retrying now" when every file on the wire is a retry); when every file left waits for a
 * retry, what the earliest says (`retryWords`, shared/queue-state.ts retryWait: "Retrying at
 * 14:11", or "Retry due since 14:09" once its time has come: it waits for a free slot, it is not
 * being sent); "Paused" when what is left is paused; "Needs you" when a file failed and nothing
 * else moves; otherwise "Waiting to upload". While `outage` says where part requests fail
 * (storage or the gateway, the queue's totals), a capture whose files were uploading says
 * "Waiting for storage" as the headline does: nothing moves, and "Uploading" at 3 a.m. would say it does.
 */
export function registeredCaptureState(
  files: readonly QueueFile[],
  retryWords: (ms: number) => string,
  outage: QueueOutage['where'] | null = null,
): string {
  const left = files.filter((f) => f.state !== 'completed' && f.state !== 'cancelled');
  if (left.length === 0) return 'Completed';
  const sending = left.filter((f) => f.state === 'uploading');
  if (sending.length > 0)
    return outage ? outageWords(outage) : sending.every((f) => f.attempts > 0) ? 'Retrying now' : 'Uploading';
  const waiting = left.filter((f) => f.state === 'pending' || f.state === 'waiting');
  if (waiting.length > 0 && waiting.every(retrying)) return retryWords(Math.min(...waiting.map((f) => f.retryAt!)));
  // Placed while its card was copied: never "Needs you", it starts by itself once verified.
  if (waiting.length > 0 && waiting.every((f) => f.awaitingCopy)) return 'Waiting for its verified copy';
  if (waiting.length > 0) return 'Waiting to upload';
  if (left.some((f) => f.state === 'failed')) return 'Needs you';
  return 'Paused';
}

/** A file's state in a word or two, when nothing more precise is said. */
const STATE_LABEL: Record<QueueFile['state'], string> = {
  waiting: 'Waiting for registration',
  pending: 'Queued',
  uploading: 'Uploading',
  paused: 'Paused',
  completed: 'Completed',
  failed: 'Needs you',
  cancelled: 'Cancelled',
};

/**
 * What the row says about a file's state: what happens next, not only what happened. A file
 * waiting for a capture that needs a person is not sent until the capture is decided.
 * `now` ms since the epoch; `outage` where part requests fail now, or null.
 */
export function fileStateText(
  f: QueueFile,
  captureNeeds: boolean,
  now: number,
  outage: QueueOutage['where'] | null,
): string {
  if (f.replacedBy) return `Replaced by capture ${f.replacedBy}: its recording changed and was added again`;
  // "Retrying at 14:11", or "Retry due since 14:09" while it waits for a free slot: never
  // "Retrying now" of a file that waits (shared/queue-state.ts retryWait).
  if (retrying(f)) return `${retryWait(f.retryAt!, now)} (attempt ${f.attempts + 1})`;
  if (f.state === 'waiting' && captureNeeds) return 'Not sent: its capture needs you';
  // Its card was pulled out while it uploaded from it: it waits for that card, named, not its turn.
  if (f.waitingForCard !== undefined && f.state !== 'completed' && f.state !== 'cancelled')
    return `Waiting for card ${f.waitingForCard}`;
  // Placed while its card was copied: it uploads from the verified copy, not the card.
  if (f.awaitingCopy && (f.state === 'pending' || f.state === 'waiting'))
    return f.state === 'waiting' ? 'Waiting for registration and its verified copy' : 'Waiting for its verified copy';
  // During an outage an uploading file's part requests fail and wait: it says so, as the headline does.
  if (f.state === 'uploading' && outage) return outageWords(outage);
  // On the wire again after a failure that passed: the one moment "Retrying now" is true.
  if (f.state === 'uploading' && f.attempts > 0) return `Retrying now (attempt ${f.attempts + 1})`;
  return STATE_LABEL[f.state];
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
 * The list's lines under a filter: one line per capture, its matching files nested under it when
 * it is opened (`fold`); a capture that needs a person counts as "needs you" with all its files.
 * Captures with no matching line are left out. Captures still at work come first, completed ones
 * after them, each group in queue order (`order`: moved to the front first, then by age:
 * what moves is at the top, not below a night of completed ones). Completed captures of one
 * batch (batchKey), two or more, are folded into one batch line until it is opened.
 */
export function queueRows(
  order: readonly number[],
  filesOf: Record<number, number[]>,
  captures: Record<number, QueueCapture>,
  files: Record<number, QueueFile>,
  filter: QueueFilter,
  fold: Folding = UNFOLDED,
): QueueRow[] {
  const rows: QueueRow[] = [];
  const done = order.filter((c) => captureDone(filesOf[c] ?? [], files));
  const doneSet = new Set(done);
  const pushCapture = (c: number) => {
    const capture = captures[c];
    if (!capture) return false;
    const ids = filesOf[c] ?? [];
    const whole =
      (filter === 'needs-you' || filter === 'active') && captureNeedsYou(capture) ? filter === 'needs-you' : undefined;
    const shown =
      whole === undefined ? ids.filter((id) => files[id] && fileMatches(files[id], filter)) : whole ? ids : [];
    if (shown.length === 0 && !(filter === 'all' || whole)) return false;
    rows.push({ kind: 'capture', id: c });
    if (fold.detailed || fold.open[c]) for (const id of shown) rows.push({ kind: 'file', id });
    return true;
  };
  for (const c of order) if (!doneSet.has(c)) pushCapture(c);
  // Completed captures by batch, each batch where its first capture stands in queue order.
  const batches = new Map<string, number[]>();
  for (const c of done) {
    const capture = captures[c];
    if (!capture) continue;
    const key = batchKey(capture);
    batches.set(key, [...(batches.get(key) ?? []), c]);
  }
  for (const [key, ids] of batches) {
    if (ids.length < 2 || fold.detailed) {
      for (const c of ids) pushCapture(c);
      continue;
    }
    const at = rows.length;
    const open = !!fold.openBatches[key];
    const shown = open ? ids.filter(pushCapture) : ids.filter(() => filter === 'all' || filter === 'completed');
    if (shown.length === 0) continue;
    rows.splice(at, 0, { kind: 'batch', key, ids, open });
  }
  return rows;
}
