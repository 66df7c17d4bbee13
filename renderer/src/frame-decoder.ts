// The window's decoding worker, from the page's side: one dedicated worker (thumbnail-worker.ts,
// built inline, so it loads under the window's file:// page and its CSP's `worker-src blob:`)
// decodes the thumbnails' frames with WebCodecs, so that neither the decoder nor the canvas nor
// the JPEG encoding runs on the page's main thread, which then only posts a message and takes
// the JPEG back. A window without WebCodecs or without workers answers `unsupported`, and the
// caller falls back to a `<video>` element.
import type { ThumbnailView } from '../../shared/ipc.js';
import ThumbnailWorker from './thumbnail-worker.js?worker&inline';

/** What the worker is asked to decode: the service's plan (ThumbnailView `frames`) and the width to draw it at (px). */
export type DecodeJob = Omit<Extract<ThumbnailView, { kind: 'frames' }>, 'kind' | 'source'> & { width: number };

/**
 * A decode's outcome: the JPEG `data:` URL, or why not, whether that lasts (the decoder's own
 * verdict on the file) and, with `unsupported`, that this window cannot decode it in the worker
 * (no WebCodecs, or this codec not in it) and a `<video>` element may still.
 */
export type DecodeAnswer =
  | { ok: true; jpeg: string }
  | { ok: false; reason: string; lasting: boolean; unsupported?: boolean };

const NO_WORKER: DecodeAnswer = {
  ok: false,
  reason: 'No preview yet: this window cannot decode in a worker',
  lasting: false,
  unsupported: true,
};

const TOO_LATE: DecodeAnswer = {
  ok: false,
  reason: 'No preview yet: its first frame did not come in time',
  lasting: false,
};

let worker: Worker | null | undefined;
const waiting = new Map<number, (a: DecodeAnswer) => void>();
let nextId = 1;

/** Answers every decode waiting with `answer` (the worker failed or was stopped). */
function answerAll(answer: DecodeAnswer): void {
  for (const done of waiting.values()) done(answer);
  waiting.clear();
}

/** The worker, started on first need; null when it cannot be (then never tried again this session). */
function theWorker(): Worker | null {
  if (worker !== undefined) return worker;
  try {
    const w = new ThumbnailWorker();
    w.onmessage = (e: MessageEvent<{ id: number; answer: DecodeAnswer }>) => {
      waiting.get(e.data.id)?.(e.data.answer);
      waiting.delete(e.data.id);
    };
    // A worker that could not load (a policy refused it): every decode falls back to <video>.
    w.onerror = () => {
      worker = null;
      answerAll(NO_WORKER);
    };
    worker = w;
  } catch {
    worker = null;
  }
  return worker;
}

/**
 * Decodes `job` in the worker; answers within `timeoutMs` (ms): when it passes, the worker is
 * stopped (a decoder can hang on a damaged file) and the next decode starts a new one, and the
 * answer is a timeout, not lasting.
 */
export function decodeInWorker(job: DecodeJob, timeoutMs: number): Promise<DecodeAnswer> {
  const w = theWorker();
  if (!w) return Promise.resolve(NO_WORKER);
  return new Promise((resolve) => {
    const id = nextId++;
    const timer = setTimeout(() => {
      w.terminate();
      if (worker === w) worker = undefined;
      // This decode and any other the stopped worker held.
      answerAll(TOO_LATE);
    }, timeoutMs);
    waiting.set(id, (a) => {
      clearTimeout(timer);
      resolve(a);
    });
    // `waiting` holds each decode until its answer, the worker's failure or its timeout empties it.
    w.postMessage({ id, job });
  });
}
