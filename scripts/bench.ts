// npm run bench [-- --runs N] [--baseline REF] [--only throughput,memory,bandwidth,queue,main-thread,relay,offload,reader,slow-link,md5,service-steps] [--pairs N] [--files N] [--gib N] [--reader-gib N]
//
// The project's figures, each with its target beside it, from one run against the local service on
// loopback (client and service share this machine):
//   throughput  a 1 GiB file four ways, in turn, each run: plain concurrent presigned PUTs in
//               Node, the same parts by curl (a C client: the true ceiling), the
//               built capture-uploader (`drain`, timed from its process start), and Debian's AWS
//               CLI (`aws s3 cp`, timed from its start); the uploader's rate over each, its CPU
//               seconds per GiB and peak RSS
//   memory      the uploader's peak RSS uploading 256 MiB and 4 GiB (flat: it must not grow with the file)
//   bandwidth   64 MiB under a limit of 16 MiB/s and of 256 KiB/s, the rate taken from the first
//               byte sent to the last (about 9 minutes for two runs at 256 KiB/s)
//   queue       5,000 dual-lens pairs queued: CLI start, `status --json`, `status`, open + recovery
//   main-thread (only when asked: `--only main-thread`) 10,000 small files (`--files`) queued and
//               drained at full speed with pause all / resume all in the middle: the event-loop
//               delay of the thread that plays the Electron main process, with the service in its
//               own process and, for comparison, with AppCore on that thread; then relay
//   relay       (with main-thread, or `--only relay`) the main thread's busy time to receive one
//               10,000-row queue event from the service process and send it on to the window
//   offload     (only when asked: `--only offload`) a generated card of `--gib` GiB (default 4)
//               copied by `cp -r` and by the verified offload: both rates, their ratio, CPU s/GiB
//   reader      (only when asked, as root: `--only reader [--reader-gib N]`, default 1 GiB) "Card
//               safe to remove" from an exFAT card on a loop device mounted with exfat-fuse, reads
//               throttled by blkio to 90 and 250 MB/s, caches dropped: the offload of the whole
//               card without and with placement, each over cp -r + sync (scripts/bench/card-reader.ts)
//   md5         (only when asked: `--only md5`; also `npm run bench:md5`) the part MD5 of 1 GiB by the
//               SIMD kernel and by node:crypto in a worker thread, four 5 MiB parts at a time:
//               CPU s/GiB and MiB/s of each, and the kernel's saving (scripts/bench/md5.ts)
//   slow-link   (only when asked: `--only slow-link --runs 1`, about 11 min a run) one 5 MiB part
//               under the client's 8 KiB/s limit: time, bytes storage received, parts sent again
//   service-steps (only when asked: `--only service-steps`) the upload service's longest synchronous
//               steps, each held to half its heartbeat's 30 s deadline: opening and migrating
//               an early release's queue of 10,000 and 50,000 captures, the queue's whole view, the
//               support report's longest slice (scripts/bench/service-steps.ts)
// --baseline REF (a commit, a tag, HEAD~N, or `release`: the newest tag before HEAD) builds REF's
// CLI in a temporary git worktree (scripts/bench/baseline.ts) and measures throughput, memory,
// bandwidth and queue for both builds in the same run, one run of each a round, the order turned
// each round, then prints each figure's best for both and this tree's ÷ REF's, WORSE past 10 %.
// The peers of throughput (plain PUTs, curl, the AWS CLI) are measured in both passes: their
// ratios, which no build changes, say how much the machine moved the pairs. The other sections
// run this tree's code in this process and are measured for this tree only.
// Every figure is measured `--runs` times (default 2); the best and the spread are printed, since
// other work on the machine moves single runs. Generated files live under the system's temporary
// folder and are deleted as soon as their section ends. Figures, not assertions.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startLocalService } from '../e2e/service/index.js';
import type { LocalService } from '../e2e/service/index.js';
import type { Figure } from './bench/figures.js';
import { printFigures } from './bench/figures.js';
import { bareNodePuts } from './bench/bare-node.js';
import { curlPuts } from './bench/curl.js';
import {
  CONCURRENCY,
  MiB,
  awsCopy,
  makeFile,
  md5CpuPerGiB,
  md5LanesCpuPerGiB,
  plainPuts,
  rateFromFirstByte,
  uploaderDrain,
} from './bench/flow.js';
import { mainThreadFigures } from './bench/main-thread.js';
import { relayFigures } from './bench/relay.js';
import { offloadFigures } from './bench/offload.js';
import { queueFigures } from './bench/queue.js';
import { slowLinkFigures } from './bench/slow-link.js';
import { md5Figures } from './bench/md5.js';
import { readerFigures } from './bench/card-reader.js';
import { serviceStepFigures } from './bench/service-steps.js';
import { buildBaseline, pairFigures, printPairs } from './bench/baseline.js';
import { useCli } from './measure.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'; // pinned SDK's future-Node notice: noise here

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '2' },
    only: { type: 'string', default: 'throughput,memory,bandwidth,queue' },
    pairs: { type: 'string', default: '5000' },
    files: { type: 'string', default: '10000' },
    gib: { type: 'string', default: '4' },
    'reader-gib': { type: 'string', default: '1' },
    baseline: { type: 'string' },
  },
});
const RUNS = Number(flags.runs);
const SECTIONS = new Set(flags.only.split(','));
const MB = 1e6;

/** Runs `body` with a fresh local service and work folder, both gone afterwards (stored objects take as much disk as the files sent). */
async function withService<T>(body: (svc: LocalService, work: string) => Promise<T>): Promise<T> {
  const work = mkdtempSync(join(tmpdir(), 'capture-bench-'));
  const svc = await startLocalService({ dataDir: join(work, 'service') });
  try {
    return await body(svc, work);
  } finally {
    await svc.close();
    rmSync(work, { recursive: true, force: true });
  }
}

const fileName = (tag: string, run: number) => `VID_20261122_07${String(run).padStart(2, '0')}00_00_${tag}.insv`;

async function throughput(runs: number): Promise<Figure[]> {
  const mib = 1024;
  const plain: number[] = [];
  const curl: number[] = [];
  const curlCpu: number[] = [];
  const bareCpu: number[] = [];
  const ours: number[] = [];
  const aws: number[] = [];
  const cpu: number[] = [];
  const awsCpu: number[] = [];
  const rss: number[] = [];
  const md5: number[] = [];
  const lanes: number[] = [];
  await withService(async (svc, work) => {
    const file = join(work, fileName('001', 0));
    await makeFile(file, mib * MiB);
    for (let run = 0; run < runs; run++) {
      plain.push(mib / (await plainPuts(svc, file, mib * MiB)));
      const c = await curlPuts(svc, work, file, mib * MiB);
      curl.push(mib / c.seconds);
      curlCpu.push((c.cpuSeconds * 1024) / mib);
      bareCpu.push(((await bareNodePuts(svc, work, file, mib * MiB)).cpuSeconds * 1024) / mib);
      const drain = await uploaderDrain(svc, join(work, `queue-${run}`), file);
      ours.push(mib / drain.seconds);
      cpu.push((drain.cpuSeconds * 1024) / mib);
      rss.push(drain.peakRss / MB);
      const a = await awsCopy(svc, work, file, `aws/${run}.insv`);
      aws.push(mib / a.seconds);
      awsCpu.push((a.cpuSeconds * 1024) / mib);
      md5.push(md5CpuPerGiB());
      lanes.push(md5LanesCpuPerGiB());
    }
  });
  const ratio = (a: number[], b: number[]) => a.map((v, i) => v / b[i]!);
  return [
    {
      name: '1 GiB: uploader / plain presigned PUTs',
      values: ratio(ours, plain),
      unit: '',
      better: 'higher',
      limit: 0.9,
      digits: 2,
      note: 'same run',
    },
    {
      name: '1 GiB: uploader / curl',
      values: ratio(ours, curl),
      unit: '',
      better: 'higher',
      limit: 0.95,
      digits: 2,
      note: 'same run; curl from registration, the uploader from process start',
    },
    {
      name: '1 GiB: curl (C client)',
      values: curl,
      unit: 'MiB/s',
      better: 'higher',
      digits: 0,
      note: `the same parts, ${CONCURRENCY} at once (--parallel), from registration`,
    },
    {
      name: '1 GiB: curl CPU',
      values: curlCpu,
      unit: 's/GiB',
      better: 'lower',
      digits: 2,
      note: 'no MD5: curl does not check ETags',
    },
    {
      name: '1 GiB: uploader / AWS CLI',
      values: ratio(ours, aws),
      unit: '',
      better: 'higher',
      limit: 1.0,
      digits: 2,
      note: 'same run; both timed from process start',
    },
    {
      name: '1 GiB: uploader',
      values: ours,
      unit: 'MiB/s',
      better: 'higher',
      digits: 0,
      note: 'from process start, sign-in included',
    },
    {
      name: '1 GiB: plain presigned PUTs',
      values: plain,
      unit: 'MiB/s',
      better: 'higher',
      digits: 0,
      note: 'from registration',
    },
    {
      name: '1 GiB: AWS CLI (aws s3 cp)',
      values: aws,
      unit: 'MiB/s',
      better: 'higher',
      digits: 0,
      note: '8 MiB parts, 10 at once',
    },
    {
      name: '1 GiB: uploader CPU',
      values: cpu,
      unit: 's/GiB',
      better: 'lower',
      limit: 1.8,
      digits: 2,
      note: 'user + system, whole process, every thread; MD5 of every byte included',
    },
    {
      name: '1 GiB: uploader CPU / (curl CPU + MD5)',
      values: cpu.map((c, i) => c / (curlCpu[i]! + lanes[i]!)),
      unit: '',
      better: 'lower',
      limit: 1.3,
      digits: 2,
      note: 'same run: what the client spends beyond a C client that sends the bytes and the MD5 it must compute',
    },
    {
      name: '1 GiB: bare Node client CPU',
      values: bareCpu,
      unit: 's/GiB',
      better: 'lower',
      digits: 2,
      note: "read, the four-lane MD5 checked against the ETag, node:http PUT, 4 at once; Node's start included",
    },
    {
      name: '1 GiB: bare Node client CPU / (curl CPU + MD5)',
      values: bareCpu.map((c, i) => c / (curlCpu[i]! + lanes[i]!)),
      unit: '',
      better: 'lower',
      digits: 2,
      note: "same run: the least a Node client adds to a C client and the MD5; the uploader's target (1.3) is this ratio's",
    },
    {
      name: '1 GiB: uploader CPU / bare Node client CPU',
      values: cpu.map((c, i) => c / bareCpu[i]!),
      unit: '',
      better: 'lower',
      digits: 2,
      note: 'same run: what the queue, sign-in, the watchdog and the checks add to the bare client',
    },
    {
      name: '1 GiB: uploader CPU less its MD5',
      values: cpu.map((c, i) => c - lanes[i]!),
      unit: 's/GiB',
      better: 'lower',
      digits: 2,
      note: 'the four-lane MD5 measured in the same run subtracted',
    },
    {
      name: 'MD5 of 1 GiB, four parts at once',
      values: lanes,
      unit: 's/GiB',
      better: 'lower',
      digits: 2,
      note: "the uploader's SIMD kernel (main/hash/local-md5.ts)",
    },
    {
      name: 'MD5 of 1 GiB on this machine',
      values: md5,
      unit: 's/GiB',
      better: 'lower',
      digits: 2,
      note: 'node:crypto (OpenSSL), one stream',
    },
    { name: '1 GiB: AWS CLI CPU', values: awsCpu, unit: 's/GiB', better: 'lower', digits: 2 },
    { name: '1 GiB: uploader peak RSS', values: rss, unit: 'MB', better: 'lower', limit: 100, digits: 0 },
  ];
}

async function memory(runs: number): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const mib of [256, 4096]) {
    const rss: number[] = [];
    const cpu: number[] = [];
    await withService(async (svc, work) => {
      const file = join(work, fileName(String(mib), 0));
      await makeFile(file, mib * MiB);
      for (let run = 0; run < runs; run++) {
        const drain = await uploaderDrain(svc, join(work, `queue-${run}`), file);
        rss.push(drain.peakRss / MB);
        cpu.push((drain.cpuSeconds * 1024) / mib);
      }
    });
    const size = mib < 1024 ? `${mib} MiB` : `${mib / 1024} GiB`;
    figures.push({
      name: `${size}: uploader peak RSS`,
      values: rss,
      unit: 'MB',
      better: 'lower',
      limit: 100,
      digits: 0,
    });
    figures.push({ name: `${size}: uploader CPU`, values: cpu, unit: 's/GiB', better: 'lower', limit: 1.5, digits: 2 });
  }
  return figures;
}

async function bandwidth(runs: number): Promise<Figure[]> {
  const figures: Figure[] = [];
  const mib = 64;
  for (const cap of [16 * MiB, 256 * 1024]) {
    const ratios: number[] = [];
    await withService(async (svc, work) => {
      const file = join(work, fileName('064', 0));
      await makeFile(file, mib * MiB);
      for (let run = 0; run < runs; run++) {
        const drain = await uploaderDrain(svc, join(work, `queue-${run}`), file, ['--bandwidth', String(cap)], true);
        ratios.push(rateFromFirstByte(drain.writes, mib * MiB) / cap);
      }
    });
    const label = cap >= MiB ? `${cap / MiB} MiB/s` : `${cap / 1024} KiB/s`;
    figures.push({
      name: `64 MiB under ${label}: rate / limit`,
      values: ratios,
      unit: '',
      better: 'higher',
      limit: 0.95,
      digits: 3,
      note: 'from the first byte sent to the last',
    });
  }
  return figures;
}

/** The sections that run the built CLI: with --baseline, measured for both builds. */
const CLI_SECTIONS: [string, (runs: number) => Promise<Figure[]>][] = [
  ['throughput', throughput],
  ['memory', memory],
  ['bandwidth', bandwidth],
  ['queue', (runs) => withService((svc, work) => queueFigures(svc, work, Number(flags.pairs), runs))],
];

/** Figures of several passes joined by name: each figure's values of every pass, in pass order. */
function joinPasses(passes: Figure[][]): Figure[] {
  const joined = new Map<string, Figure>();
  for (const f of passes.flat()) {
    const seen = joined.get(f.name);
    if (seen) seen.values.push(...f.values);
    else joined.set(f.name, { ...f, values: [...f.values] });
  }
  return [...joined.values()];
}

console.log(
  `bench: ${RUNS} run(s) of each figure; concurrency ${CONCURRENCY}, 5 MiB parts, local service on loopback; ${flags.only}`,
);
const figures: Figure[] = [];
const baselineFigures: Figure[] = [];
const base = flags.baseline === undefined ? undefined : buildBaseline(flags.baseline);
try {
  for (const [name, section] of CLI_SECTIONS) {
    if (!SECTIONS.has(name)) continue;
    if (!base) {
      figures.push(...(await section(name === 'queue' ? Math.max(RUNS, 3) : RUNS)));
      continue;
    }
    // One run of each build a round, the order turned each round, so a neighbour's load or a
    // warming cache falls on both alike.
    const ours: Figure[][] = [];
    const theirs: Figure[][] = [];
    for (let round = 0; round < RUNS; round++) {
      for (const baselineFirst of round % 2 ? [true, false] : [false, true]) {
        if (!baselineFirst) ours.push(await section(1));
        else {
          const own = useCli(base.entry);
          try {
            theirs.push(await section(1));
          } finally {
            useCli(own);
          }
        }
      }
    }
    figures.push(...joinPasses(ours));
    baselineFigures.push(...joinPasses(theirs));
  }
} finally {
  base?.remove();
}
if (SECTIONS.has('main-thread')) {
  const work = mkdtempSync(join(tmpdir(), 'capture-bench-'));
  try {
    figures.push(...(await mainThreadFigures(work, Number(flags.files))));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
if (SECTIONS.has('main-thread') || SECTIONS.has('relay')) {
  const work = mkdtempSync(join(tmpdir(), 'capture-bench-'));
  try {
    figures.push(...(await relayFigures(work)));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
if (SECTIONS.has('offload')) {
  const work = mkdtempSync(join(tmpdir(), 'capture-bench-'));
  try {
    figures.push(...(await offloadFigures(work, Number(flags.gib), RUNS)));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
if (SECTIONS.has('reader')) {
  const work = mkdtempSync(join(tmpdir(), 'capture-bench-reader-'));
  try {
    figures.push(...(await readerFigures(work, Number(flags['reader-gib']), RUNS)));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
if (SECTIONS.has('slow-link')) figures.push(...(await withService((svc, work) => slowLinkFigures(svc, work, RUNS))));
if (SECTIONS.has('md5')) figures.push(...(await md5Figures(RUNS, 1024)));
if (SECTIONS.has('service-steps')) figures.push(...(await serviceStepFigures(RUNS)));
printFigures(figures);
if (base) printPairs(pairFigures(figures, baselineFigures), base.commit);
