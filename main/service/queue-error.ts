import { reasonOf } from '../api/errors.js';
import { QueueInUseError } from '../queue/lock.js';

/** How often the app tries again to open a queue another process holds (ms). */
export const QUEUE_RETRY_MS = 3000;

/**
 * What the app says while another process holds its queue (`capture-uploader drain` or `import`,
 * or another copy of the app): whose it is, that the app waits and tries again every `retryMs`
 * (ms), and that it opens by itself. Never advice to move the folder aside: the queue is fine,
 * and moving it would lose the record of the captures it registered.
 */
export function queueInUseMessage(err: QueueInUseError, retryMs: number = QUEUE_RETRY_MS): string {
  const h = err.holder;
  const who = h ? `process ${h.pid}` : 'another process';
  const where = h ? ` (on ${h.host}, since ${h.since})` : '';
  return (
    `The upload queue in ${err.dir} is in use by ${who}; waiting. Another Capture Uploader or a capture-uploader command${where} has it; ` +
    `it is tried again every ${Math.round(retryMs / 1000)} s and opens by itself once that process ends. Nothing needs to be done.`
  );
}

/**
 * Why the queue could not be opened, and what a person can do about it: the error's own sentence
 * (it names the file and the cause), then where the queue folder is. For a queue another process
 * holds, queueInUseMessage: waiting, never moving the folder.
 */
export function queueErrorMessage(err: unknown, queueDir: string): string {
  if (err instanceof QueueInUseError) return queueInUseMessage(err);
  return (
    `The upload queue could not be opened: ${reasonOf(err)} ` +
    `The queue is kept in the folder ${queueDir}. To start with an empty queue, quit Capture Uploader, move that folder aside (rename it), and start the app again. ` +
    'Captures already registered stay on the platform.'
  );
}
