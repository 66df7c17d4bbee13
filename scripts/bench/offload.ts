// `npm run bench -- --only offload [--gib N]`: a generated card of N GiB (default 4)
// copied from one folder to another on the same disk, by `cp -r` and by the verified offload
// (XXH64 while reading, the copy flushed and read back), in turn, each run. Prints the rates, the
// offload's ratio to `cp` of the same run (target ≥ 0.9) and CPU seconds per GiB, and the load
// average before and after (the machine is shared). The card's files are written once; what the
// kernel caches of them helps `cp` and the offloads alike.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { offloadCard } from '../../main/offload/offload.js';
import type { Figure } from './figures.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Writes a card of `gib` GiB: recordings of two 512 MiB lenses in DCIM/Camera01, from one 64 MiB random block repeated. */
function writeBigCard(root: string, gib: number): void {
  const dir = join(root, 'DCIM', 'Camera01');
  mkdirSync(dir, { recursive: true });
  const block = randomBytes(64 * MiB);
  const lensBytes = 512 * MiB;
  const recordings = Math.max(1, Math.round((gib * GiB) / (2 * lensBytes)));
  for (let i = 0; i < recordings; i++) {
    const nnn = String(i + 1).padStart(3, '0');
    for (const lens of ['00', '10']) {
      const fd = openSync(join(dir, `VID_20261124_08${String(i).padStart(2, '0')}00_${lens}_${nnn}.insv`), 'w');
      // Each lens starts at another offset of the block, so no two files are the same.
      for (let done = 0; done < lensBytes; done += block.length) writeSync(fd, block, 0, block.length, done);
      writeSync(fd, Buffer.from(`${i}-${lens}`), 0, undefined, 0);
      closeSync(fd);
    }
  }
}

/** The offload figures, `runs` of each, in `work` (left for the caller to remove). */
export async function offloadFigures(work: string, gib: number, runs: number): Promise<Figure[]> {
  const card = join(work, 'CARD');
  writeBigCard(card, gib);
  const bytes = Number(execFileSync('du', ['-sb', card]).toString().split('\t')[0]);
  const cp: number[] = [];
  const cpCpu: number[] = [];
  // cp's own CPU (user + system, from GNU time where there is one): what the offload's CPU compares with.
  const timeTool = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
  const plain = { rate: [] as number[], ratio: [] as number[], cpu: [] as number[] };
  const load = (when: string) =>
    console.log(
      `offload: load average ${when}: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')} (1, 5, 15 min)`,
    );
  /** One offload into a fresh library: its rate (MB/s) and CPU s/GiB into `into`, its ratio to this run's cp. */
  const offloadOnce = async (library: string, into: typeof plain) => {
    const before = process.cpuUsage();
    const t = performance.now();
    const r = await offloadCard(card, { library });
    const seconds = (performance.now() - t) / 1000;
    const used = process.cpuUsage(before);
    if (!r.verified)
      throw new Error(
        `bench: the offload did not verify: ${r.files
          .filter((f) => !f.verified)
          .map((f) => f.error)
          .join('; ')}`,
      );
    into.rate.push(r.bytes / 1e6 / seconds);
    into.ratio.push(into.rate.at(-1)! / cp.at(-1)!);
    into.cpu.push((used.user + used.system) / 1e6 / (r.bytes / GiB));
    rmSync(library, { recursive: true, force: true });
  };
  load('before');
  for (let run = 0; run < runs; run++) {
    const dest = join(work, `cp-${run}`);
    const times = join(work, 'cp-time');
    const t = performance.now();
    if (timeTool)
      execFileSync('sh', ['-c', `"$0" -f '%U %S' -o "$3" cp -r "$1" "$2" && sync`, timeTool, card, dest, times]);
    else execFileSync('sh', ['-c', `cp -r "$0" "$1" && sync`, card, dest]);
    cp.push(bytes / 1e6 / ((performance.now() - t) / 1000));
    if (timeTool)
      cpCpu.push(
        readFileSync(times, 'utf8')
          .trim()
          .split(/\s+/)
          .map(Number)
          .reduce((a, b) => a + b, 0) /
          (bytes / GiB),
      );
    rmSync(dest, { recursive: true, force: true });
    await offloadOnce(join(work, `library-${run}`), plain);
  }
  load('after');
  return [
    { name: `offload: cp -r of ${gib} GiB (then sync)`, values: cp, unit: 'MB/s', better: 'higher', digits: 0 },
    ...(cpCpu.length
      ? [
          {
            name: 'offload: cp CPU per GiB',
            values: cpCpu,
            unit: 's/GiB',
            better: 'lower' as const,
            digits: 2,
            note: "user + system of cp (GNU time); the flush is the kernel's",
          },
        ]
      : []),
    { name: 'offload: verified (XXH64, read-back)', values: plain.rate, unit: 'MB/s', better: 'higher', digits: 0 },
    {
      name: 'offload: verified / cp, same run',
      values: plain.ratio,
      unit: '',
      better: 'higher',
      limit: 0.9,
      digits: 2,
    },
    {
      name: 'offload: CPU per GiB',
      values: plain.cpu,
      unit: 's/GiB',
      better: 'lower',
      digits: 2,
      note: 'user + system of the whole offload, read-back included',
    },
  ];
}
