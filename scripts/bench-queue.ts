// npm run bench:queue [-- PAIRS [RUNS]] [--batch]: only the queue figures of `npm run bench` (see
// scripts/bench/queue.ts): first a person's batches on the queue (scripts/bench/batch.ts: pause
// all, resume all, retry all, clear completed, forget ETags; in this process), then a card of
// PAIRS dual-lens pairs (default 5,000: 10,000 files) added through the built CLI against the
// local service, then the CLI's start, `status --json`, `status` and open with crash recovery,
// each RUNS times (default 3), best and spread. `--batch`: the batches only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService } from '../e2e/service/index.js';
import { batchFigures } from './bench/batch.js';
import { printFigures } from './bench/figures.js';
import { queueFigures } from './bench/queue.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const batchOnly = process.argv.includes('--batch');
const [pairsArg, runsArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const pairs = Number(pairsArg ?? 5000);
const runs = Number(runsArg ?? 3);
const work = mkdtempSync(join(tmpdir(), 'capture-bench-queue-'));
try {
  console.log(`bench:queue: batches on ${2 * pairs} queued files, ${runs} runs`);
  printFigures(batchFigures(work, pairs, runs));
  if (!batchOnly) {
    const svc = await startLocalService({ dataDir: join(work, 'service') });
    try {
      console.log(
        `bench:queue: ${pairs} dual-lens pairs (${2 * pairs} files), local service in this process, built CLI, ${runs} runs`,
      );
      printFigures(await queueFigures(svc, work, pairs, runs));
    } finally {
      await svc.close();
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
