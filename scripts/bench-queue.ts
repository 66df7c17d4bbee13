// npm run bench:queue [-- PAIRS]: the queue at the size users bring (default 5,000 dual-lens pairs,
// 10,000 files), through the built `capture-uploader` against the local service.
//
// Prints: the CLI's start (`--help`), `add` of every pair (intake, fingerprints, queue, one
// registration per capture), `status --json` and `status` (wall time, and above the CLI's start),
// opening the queue with crash recovery (all files marked uploading first, as after a SIGKILL),
// and the peak RSS of each. Figures, not assertions: targets live in issue #11 and the README.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService } from '../e2e/service/index.js';
import { uploaderEnv } from '../e2e/service/testing.js';
import { openQueueDatabase } from '../main/queue/db.js';
import { UploadQueue } from '../main/queue/queue.js';
import { runCli } from './measure.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const PAIRS = Number(process.argv[2] ?? 5000);

const cli = runCli;

const best = async (n: number, f: () => Promise<{ seconds: number; peakRss: number }>) => {
  const runs = [];
  for (let i = 0; i < n; i++) runs.push(await f());
  return runs.sort((a, b) => a.seconds - b.seconds)[0]!;
};
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;

const work = mkdtempSync(join(tmpdir(), 'capture-bench-queue-'));
const svc = await startLocalService({ dataDir: join(work, 'service') });
try {
  const card = join(work, 'card');
  mkdirSync(card);
  for (let i = 0; i < PAIRS; i++) {
    const t = new Date(Date.UTC(2026, 10, 23) + i * 61_000).toISOString();
    const stamp = `${t.slice(0, 10).replaceAll('-', '')}_${t.slice(11, 19).replaceAll(':', '')}`;
    for (const lens of ['00', '10']) writeFileSync(join(card, `VID_${stamp}_${lens}_${String(i % 1000).padStart(3, '0')}.insv`), randomBytes(1024));
  }
  const dataDir = join(work, 'queue');
  const env = { ...process.env, NODE_NO_WARNINGS: '1', ...uploaderEnv(svc.info, dataDir) };
  console.log(`bench:queue: ${PAIRS} dual-lens pairs (${2 * PAIRS} files), local service in this process, built CLI`);

  const start = await best(5, () => cli(env, ['--help']));
  console.log(`CLI start (--help, best of 5)     ${start.seconds.toFixed(2)} s   peak RSS ${mib(start.peakRss)}`);
  const add = await cli(env, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', card]);
  console.log(`add of ${PAIRS} pairs                ${add.seconds.toFixed(1)} s    peak RSS ${mib(add.peakRss)}`);
  for (const args of [['status', '--json'], ['status']]) {
    const s = await best(3, () => cli(env, args));
    console.log(`${args.join(' ').padEnd(32)} ${s.seconds.toFixed(2)} s   (${((s.seconds - start.seconds) * 1000).toFixed(0)} ms above start)   peak RSS ${mib(s.peakRss)}`);
  }

  // Crash recovery: every file caught uploading, as after a SIGKILL mid-drain.
  const { db } = openQueueDatabase(join(dataDir, 'queue.db'));
  db.prepare("UPDATE files SET state = 'uploading' WHERE state = 'pending'").run();
  db.close();
  const t0 = performance.now();
  const opened = openQueueDatabase(join(dataDir, 'queue.db'));
  const recovered = new UploadQueue(opened.db).recoverInterrupted();
  const openMs = performance.now() - t0;
  opened.db.close();
  console.log(`queue open + crash recovery       ${openMs.toFixed(0)} ms (${recovered.resumedFiles} files back to pending)`);
} finally {
  await svc.close();
  rmSync(work, { recursive: true, force: true });
}
