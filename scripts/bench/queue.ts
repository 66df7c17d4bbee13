// The queue at the size users bring: a card of dual-lens pairs added through the built CLI against
// the local service (with both sides' CPU, and what one commit waits for the disk), then the CLI's
// start, `status --json` and `status` with it queued, and the queue's open with crash recovery.
// Figures, not assertions.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalService } from '../../e2e/service/index.js';
import { uploaderEnv } from '../../e2e/service/testing.js';
import { openQueueDatabase } from '../../main/queue/db.js';
import { UploadQueue } from '../../main/queue/queue.js';
import { commitTimes, setEveryFileState } from '../../main/testing/queue-backdoors.js';
import { runCli } from '../measure.js';
import type { Figure } from './figures.js';

const MiB = 1024 * 1024;

/** Writes a card of `pairs` dual-lens recordings (two 1 KiB `.insv` lenses each, a minute apart) under `dir`. */
function makeCard(dir: string, pairs: number): void {
  mkdirSync(dir);
  for (let i = 0; i < pairs; i++) {
    const t = new Date(Date.UTC(2026, 10, 23) + i * 61_000).toISOString();
    const stamp = `${t.slice(0, 10).replaceAll('-', '')}_${t.slice(11, 19).replaceAll(':', '')}`;
    for (const lens of ['00', '10'])
      writeFileSync(join(dir, `VID_${stamp}_${lens}_${String(i % 1000).padStart(3, '0')}.insv`), randomBytes(1024));
  }
}

/**
 * ms one committed transaction waits for the disk under `dir`, as the queue commits them (WAL,
 * synchronous=FULL): the median of 200 one-row commits. Registration waits for two per capture,
 * so this figure read beside `add` says how much of it is the disk (docs/queue-commits.md).
 */
function commitMs(dir: string): number {
  return commitTimes(join(dir, 'commit-probe.db'), 200).sort((a, b) => a - b)[100]!;
}

/**
 * Adds a card of `pairs` dual-lens pairs (2 × pairs files) through the built CLI into a queue
 * under `work`, then measures `runs` times each: the CLI's start (`--help`), `status --json` and
 * `status` (wall ms above that run's start), and the queue's open with crash recovery (every file
 * caught `uploading`, as after a SIGKILL mid-drain). Returns the figures with their targets, and
 * beside `add` the CPU of the CLI and of the service (this process), and what one commit waits
 * for the disk here.
 */
export async function queueFigures(svc: LocalService, work: string, pairs: number, runs: number): Promise<Figure[]> {
  const card = join(work, 'card');
  makeCard(card, pairs);
  const dataDir = join(work, 'queue');
  const env = { ...process.env, NODE_NO_WARNINGS: '1', ...uploaderEnv(svc.info, dataDir) };
  const commit = commitMs(work);
  const serviceCpu0 = process.cpuUsage();
  const add = await runCli(env, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', card]);
  const serviceCpu = process.cpuUsage(serviceCpu0);
  const files = `${2 * pairs} files`;
  const start: number[] = [];
  const json: number[] = [];
  const text: number[] = [];
  const rss: number[] = [];
  const recovery: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = (await runCli(env, ['--help'])).seconds * 1000;
    start.push(s);
    const j = await runCli(env, ['status', '--json']);
    json.push(j.seconds * 1000 - s);
    rss.push(j.peakRss / MiB);
    text.push((await runCli(env, ['status'])).seconds * 1000 - s);
    const caught = openQueueDatabase(join(dataDir, 'queue.db'));
    setEveryFileState(new UploadQueue(caught.db), 'uploading', { from: 'pending' });
    caught.db.close();
    const t0 = performance.now();
    const opened = openQueueDatabase(join(dataDir, 'queue.db'));
    new UploadQueue(opened.db).recoverInterrupted();
    recovery.push(performance.now() - t0);
    opened.db.close();
  }
  return [
    {
      name: `queue: add of ${pairs} dual-lens pairs`,
      values: [add.seconds],
      unit: 's',
      better: 'lower',
      limit: 25,
      digits: 1,
      note: 'one run; the local service registers each capture',
    },
    {
      name: 'queue: add, client CPU',
      values: [add.cpuSeconds],
      unit: 's',
      better: 'lower',
      digits: 1,
      note: 'user + system of the CLI',
    },
    {
      name: 'queue: add, local service CPU',
      values: [(serviceCpu.user + serviceCpu.system) / 1e6],
      unit: 's',
      better: 'lower',
      digits: 1,
      note: 'this process, meanwhile',
    },
    {
      name: 'queue: one commit waiting for this disk',
      values: [commit],
      unit: 'ms',
      better: 'lower',
      digits: 2,
      note: 'WAL, synchronous=FULL, median of 200; add waits for two per capture',
    },
    { name: 'queue: CLI start (--help)', values: start, unit: 'ms', better: 'lower', limit: 150, digits: 0 },
    {
      name: `queue: status --json, ${files}, above start`,
      values: json,
      unit: 'ms',
      better: 'lower',
      limit: 300,
      digits: 0,
    },
    { name: `queue: status, ${files}, above start`, values: text, unit: 'ms', better: 'lower', limit: 300, digits: 0 },
    { name: `queue: status --json peak RSS`, values: rss, unit: 'MiB', better: 'lower', digits: 0 },
    {
      name: `queue: open + crash recovery, ${files}`,
      values: recovery,
      unit: 'ms',
      better: 'lower',
      limit: 1000,
      digits: 0,
    },
  ];
}
