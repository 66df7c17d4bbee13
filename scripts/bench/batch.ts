// A person's batch on a big queue: "Pause all", "Resume all", "Retry all",
// "Clear completed" on 10,000 files and forgetting 10,000 ETags, each timed from the call to the
// rows message the screen gets (the engine's one transaction, its one event, the live queue's
// flush). In this process, no service: nothing is sent. Figures, not assertions.
import { join } from 'node:path';
import { CaptureGateway } from '../../main/api/gateway.js';
import { UploadEngine } from '../../main/engine/engine.js';
import { LiveQueue } from '../../main/service/live-queue.js';
import { openQueueDatabase } from '../../main/queue/db.js';
import { UploadQueue } from '../../main/queue/queue.js';
import { fillQueue } from '../../main/testing/fill-queue.js';
import {
  clearEveryRetry,
  setEveryCaptureState,
  setEveryFileState,
  storeEveryPart,
} from '../../main/testing/queue-backdoors.js';
import type { Figure } from './figures.js';

const PART = 5 * 1024 * 1024;

/** ms taken by `fn`. */
function timed(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/**
 * The time (ms, mean of 200 calls) QueueSchedule.dueFiles takes on this queue to name the next
 * files to start (4 of them, 2 running), as the drain loop asks at each turn: with one capture
 * moved to the front and 1 file in 50 waiting for a retry that is due (docs/decisions/0005-fair-order.md).
 */
function dueFilesMs(queue: UploadQueue, ids: readonly number[]): number {
  const now = Date.now();
  ids.forEach((id, i) => {
    if (i % 50 === 49)
      queue.moveFile(id, ['pending'], 'pending', { error: 'SlowDown', retryAt: now - 1000, transient: true });
  });
  const front = queue.file(ids[Math.floor(ids.length / 2)]!)!.captureRow;
  queue.schedule.setFront(front, true);
  const calls = 200;
  const ms = timed(() => {
    for (let i = 0; i < calls; i++) queue.schedule.dueFiles(Date.now(), 4, ids.slice(0, 2));
  });
  queue.schedule.setFront(front, false);
  clearEveryRetry(queue);
  return ms / calls;
}

/**
 * Measures each batch `runs` times on a fresh queue of `pairs` registered dual-lens pairs under
 * `work` (2 × pairs files), and forgetting the ETags of one file of 10,000 stored parts. Returns
 * the figures; "Pause all" is held to 200 ms.
 */
export function batchFigures(work: string, pairs: number, runs: number): Figure[] {
  const pause: number[] = [];
  const pauseEngine: number[] = [];
  const resume: number[] = [];
  const retry: number[] = [];
  const clear: number[] = [];
  const forget: number[] = [];
  const messages: number[] = [];
  const due: number[] = [];
  for (let run = 0; run < runs; run++) {
    const queue = new UploadQueue(openQueueDatabase(join(work, `batch-${run}.db`)).db);
    const ids = fillQueue(queue, pairs);
    due.push(dueFilesMs(queue, ids));
    const gateway = new CaptureGateway({
      baseUrl: 'http://127.0.0.1:9',
      authUrl: 'http://127.0.0.1:9',
      apiKey: 'k',
      projectId: 'p',
      email: 'a@b.c',
      password: 'x',
    });
    const engine = new UploadEngine({ queue, gateway });
    let sent = 0;
    const live = new LiveQueue(
      queue,
      () => null,
      () => engine.holds.current,
      () => void sent++,
      0,
    );
    engine.on((e) => live.onEngine(e));
    const batch = (fn: () => void) =>
      timed(() => {
        fn();
        live.flush();
      });
    pause.push(batch(() => engine.pauseAll()));
    messages.push(sent);
    engine.resumeAll();
    live.flush();
    pauseEngine.push(timed(() => engine.pauseAll())); // the transaction and its one event, without the screen's message
    live.flush();
    resume.push(batch(() => engine.resumeAll()));
    setEveryFileState(queue, 'failed', { error: 'x' });
    retry.push(batch(() => engine.retryAll()));
    setEveryFileState(queue, 'completed');
    setEveryCaptureState(queue, 'completed');
    clear.push(batch(() => engine.clearCompleted()));
    // One recording of 10,000 parts whose ETags storage lost (a reconcile after a crash).
    const request = {
      project: 'p',
      structure: 's',
      type: 'interior' as const,
      mode: 'video',
      sourceType: 'bot' as const,
      captureDateTime: '2026-11-23T08:00:00Z',
      files: [{ frameIndex: 1, fileName: 'big.insv', contentType: 'video/mp4', size: 10_000 * PART }],
    };
    const row = queue.enqueueCapture('big', request, [
      { path: '/card/big.insv', fileName: 'big.insv', contentType: 'video/mp4', size: 10_000 * PART, mtimeMs: 0 },
    ]);
    queue.saveRegistration(row, 'cap-big', [
      {
        frameIndex: 1,
        uploadId: 'u-big',
        fileName: 'big.insv',
        size: 10_000 * PART,
        partSize: PART,
        totalParts: 10_000,
        status: 'initiated',
      },
    ]);
    const file = queue.filesOf(row)[0]!;
    storeEveryPart(queue, file.id, '"e"');
    forget.push(
      timed(() =>
        queue.batch.forgetParts(
          file.id,
          Array.from({ length: 10_000 }, (_, i) => i + 1),
        ),
      ),
    );
    queue.db.close();
  }
  const files = `${(2 * pairs).toLocaleString('en')} files`;
  return [
    {
      name: `next files due among ${files} (dueFiles)`,
      values: due,
      unit: 'ms',
      better: 'lower',
      digits: 2,
      note: 'per call, as the drain loop asks at each turn; a capture in front, 1 in 50 files a retry due',
    },
    {
      name: `batch: pause all, ${files}`,
      values: pause,
      unit: 'ms',
      better: 'lower',
      limit: 200,
      digits: 0,
      note: 'one transaction, one event, to the rows message',
    },
    {
      name: `batch: pause all, ${files}, engine only`,
      values: pauseEngine,
      unit: 'ms',
      better: 'lower',
      digits: 0,
      note: 'the transaction and its event',
    },
    { name: 'batch: rows messages for pause all', values: messages, unit: '', better: 'lower', limit: 1, digits: 0 },
    { name: `batch: resume all, ${files}`, values: resume, unit: 'ms', better: 'lower', limit: 200, digits: 0 },
    { name: `batch: retry all, ${files}`, values: retry, unit: 'ms', better: 'lower', limit: 200, digits: 0 },
    { name: `batch: clear completed, ${files}`, values: clear, unit: 'ms', better: 'lower', limit: 200, digits: 0 },
    {
      name: 'batch: forget 10,000 ETags of one file',
      values: forget,
      unit: 'ms',
      better: 'lower',
      limit: 200,
      digits: 0,
    },
  ];
}
