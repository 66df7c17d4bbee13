// The support report's read of the queue: `status --json` and the last 24 hours' summary, from a
// read-only connection of its own (main/queue/reader.ts withQueueFileReadOnly). Made on the caller's thread by the
// CLI's report, on a thread of its own by the app's (report-queue-worker.ts), where on a queue of
// 100,000 files it takes seconds the upload service's event loop cannot spare
// (docs/decisions/0035-service-heartbeat.md).
import { Worker } from 'node:worker_threads';
import type { NightSummary } from '../../shared/night-summary.js';
import { join } from 'node:path';
import { withQueueFileReadOnly } from '../queue/reader.js';
import { statusJsonDocument } from '../status/status-document.js';
import { queueSummary } from '../status/summary.js';

/** How far back the report's summary looks: the last 24 hours, in ms. */
const DAY_MS = 24 * 60 * 60 * 1000;

/** What to read: the queue's folder (the one holding `queue.db`) and the report's clock (ms since 1970). */
export interface ReportQueueRequest {
  queueDir: string;
  now: number;
}

/**
 * The queue as the report holds it: the status document (status --json's text), the summary since
 * `since` (ISO 8601, 24 hours before the report), or why the queue could not be read (none yet,
 * damaged, another version) in `error`.
 */
export type ReportQueueRead =
  | { ok: true; status: string; summary: NightSummary; since: string }
  | { ok: false; error: string };

/** Reads the queue for the report on this thread (ReportQueueRead); never throws. */
export function readReportQueue(r: ReportQueueRequest): ReportQueueRead {
  try {
    const since = new Date(r.now - DAY_MS).toISOString();
    const { status, summary } = withQueueFileReadOnly(join(r.queueDir, 'queue.db'), (q) => ({
      status: statusJsonDocument(q),
      summary: queueSummary(q, since),
    }));
    return { ok: true, status, summary, since };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * readReportQueue on a worker thread, so the calling thread's event loop turns meanwhile.
 * Aborting `signal` ends the thread (Worker.terminate) and rejects with the signal's reason; a
 * thread that fails or ends without answering resolves `{ ok: false, error }` saying so.
 */
export function readReportQueueOffThread(r: ReportQueueRequest, signal?: AbortSignal): Promise<ReportQueueRead> {
  signal?.throwIfAborted();
  const { url, entry } = workerEntry();
  const worker = new Worker(url, { workerData: { request: r, ...(entry ? { entry } : {}) } });
  return new Promise<ReportQueueRead>((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      f();
    };
    const onAbort = () => settle(() => (void worker.terminate(), reject(signal!.reason as Error)));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (read: ReportQueueRead) => settle(() => resolve(read)));
    worker.once('error', (err) =>
      settle(() => resolve({ ok: false, error: `The queue could not be read: ${err.message}` })),
    );
    worker.once('exit', (code) =>
      settle(() => resolve({ ok: false, error: `The queue could not be read: its thread ended (code ${code}).` })),
    );
  });
}

/**
 * The thread's module: from source (tests, tsx) through main/service/tsx-boot.mjs; from the
 * app's bundle, report-queue-worker.js beside
 * the entry (this code's folder, or its parent when esbuild put it in a shared chunk).
 */
function workerEntry(): { url: URL; entry?: string } {
  if (import.meta.url.endsWith('.ts'))
    return {
      url: new URL('../service/tsx-boot.mjs', import.meta.url),
      entry: new URL('./report-queue-worker.ts', import.meta.url).href,
    };
  return {
    url: new URL(
      /\/chunks\/[^/]*$/.test(import.meta.url) ? '../report-queue-worker.js' : './report-queue-worker.js',
      import.meta.url,
    ),
  };
}
