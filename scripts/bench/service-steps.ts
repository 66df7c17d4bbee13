// The upload service's longest synchronous steps, each run as the service runs it, in this process:
// while one runs, the service's event loop does not turn, so its host's heartbeat is not answered
// (main/service-host/heartbeat.ts: hung after 30 s of silence). Each is held to half that deadline, on
// a loaded machine (docs/decisions/0035-service-heartbeat.md). Figures, not assertions.
//
// - opening a queue an early release left (schema 1) of C captures (2 files of 20 parts each):
//   quick_check, then every migration to the latest in one transaction (C = 10,000 and 50,000);
// - the queue's whole view (`capture:queue.list`, LiveQueue.view) of those 2C files;
// - the support report (gatherReport) over the 50,000-capture queue and 14 days of 20 MiB logs: the
//   event loop's longest block while it is made (its queue read is on a thread of its own, its log
//   in slices), and its whole time.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import type { Database } from '../../main/testing/queue-backdoors.js';
import { writeEarlyQueue } from '../../main/testing/queue-backdoors.js';
import { openQueueDatabase } from '../../main/queue/db.js';
import { MIGRATIONS } from '../../main/queue/migrations/index.js';
import { UploadQueue } from '../../main/queue/queue.js';
import { LiveQueue } from '../../main/service/live-queue.js';
import { HEARTBEAT } from '../../main/service-host/heartbeat.js';
import { gatherReport } from '../../main/support/support-report.js';
import type { Figure } from './figures.js';

const PARTS = 20;
/** Half the heartbeat's deadline (ms): what one step may take, so a loaded machine's slowest is never taken for a hang. */
const STEP_LIMIT_MS = HEARTBEAT.deadlineMs / 2;

/** 14 daily log files of `mib` MiB each in `dir`, dated back from today. */
function busyLogs(dir: string, mib: number): void {
  mkdirSync(dir, { recursive: true });
  const line = `${JSON.stringify({ at: '2026-11-27T03:15:00.000+01:00', level: 'warn', source: 'service', kind: 'file', fileId: 12345, captureRow: 678, state: 'pending', message: 'VID_20261123_080000_00_001.insv: pending — the capture service answers 503 Service Unavailable; retried at 03:30' })}\n`;
  const body = line.repeat(Math.ceil((mib * 1024 * 1024) / line.length));
  for (let d = 0; d < 14; d++)
    writeFileSync(
      join(dir, `capture-uploader-${new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10)}.log`),
      body,
    );
}

/** ms taken by `fn`. */
function timed(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** The service's steps, `runs` times each; every value in ms. */
export async function serviceStepFigures(runs: number): Promise<Figure[]> {
  const work = mkdtempSync(join(tmpdir(), 'capture-bench-steps-'));
  const figures: Figure[] = [];
  const step = (name: string, values: number[], note?: string): Figure => ({
    name,
    values,
    unit: 'ms',
    better: 'lower',
    limit: STEP_LIMIT_MS,
    digits: 0,
    note,
  });
  try {
    for (const captures of [10_000, 50_000]) {
      const opens: number[] = [];
      const views: number[] = [];
      let mib = 0;
      for (let run = 0; run < runs; run++) {
        const dir = join(work, `q-${captures}-${run}`);
        mkdirSync(dir);
        const file = join(dir, 'queue.db');
        writeEarlyQueue(file, captures, PARTS);
        mib = statSync(file).size / 1024 / 1024;
        let db!: Database.Database;
        opens.push(timed(() => (db = openQueueDatabase(file).db)));
        const live = new LiveQueue(
          new UploadQueue(db),
          () => null,
          () => null,
          () => {},
          0,
        );
        views.push(timed(() => live.view()));
        live.close();
        db.close();
      }
      figures.push(
        step(
          `open + migrate 1→${MIGRATIONS.at(-1)!.version}, ${captures} captures`,
          opens,
          `${2 * captures} files, ${2 * captures * PARTS} parts, ${mib.toFixed(0)} MiB`,
        ),
        step(`queue view (queue.list), ${2 * captures} files`, views),
      );
    }
    const logs = join(work, 'logs');
    busyLogs(logs, 20);
    const longest: number[] = [];
    const whole: number[] = [];
    for (let run = 0; run < runs; run++) {
      // The event loop's longest block while the report is made (the queue's read is on a thread
      // of its own, the log in slices): what the heartbeat's ping would wait for.
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      const t0 = performance.now();
      await gatherReport(
        {
          out: join(work, `report-${run}.zip`),
          queueDir: join(work, 'q-50000-0'),
          logDir: logs,
          settings: {},
          secrets: ['hunter2-the-account-password'],
          madeBy: 'bench',
        },
        { logBudgetMs: Infinity },
      );
      whole.push(performance.now() - t0);
      delay.disable();
      longest.push(delay.max / 1e6);
    }
    figures.push(
      step(
        'support report: longest block of the event loop',
        longest,
        '14 days × 20 MiB of log, the 50,000-capture queue',
      ),
      {
        ...step('support report: whole', whole, 'the event loop turns between slices'),
        limit: undefined,
      },
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return figures;
}
