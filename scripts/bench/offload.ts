// `npm run bench -- --only offload [--gib N]` (issue 19 #9): a generated card of N GiB (default 4)
// copied from one folder to another on the same disk, by `cp -r` and by the verified offload
// (XXH64 while reading, the copy flushed and read back), in turn, each run. Prints both rates,
// their ratio (target ≥ 0.9) and the offload's CPU seconds per GiB. The card's files are written
// once; what the kernel caches of them helps `cp` and the offload alike.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
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
  const offload: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < runs; run++) {
    const dest = join(work, `cp-${run}`);
    let t = performance.now();
    execFileSync('sh', ['-c', `cp -r "$0" "$1" && sync`, card, dest]);
    cp.push(bytes / 1e6 / ((performance.now() - t) / 1000));
    rmSync(dest, { recursive: true, force: true });

    const library = join(work, `library-${run}`);
    const before = process.cpuUsage();
    t = performance.now();
    const r = await offloadCard(card, { library });
    const seconds = (performance.now() - t) / 1000;
    const used = process.cpuUsage(before);
    if (!r.verified) throw new Error(`bench: the offload did not verify: ${r.files.filter((f) => !f.verified).map((f) => f.error).join('; ')}`);
    offload.push(r.bytes / 1e6 / seconds);
    cpu.push((used.user + used.system) / 1e6 / (r.bytes / GiB));
    rmSync(library, { recursive: true, force: true });
  }
  const ratio = offload.map((o, i) => o / cp[i]!);
  return [
    { name: `offload: cp -r of ${gib} GiB (then sync)`, values: cp, unit: 'MB/s', better: 'higher', digits: 0 },
    { name: 'offload: verified (XXH64, read-back)', values: offload, unit: 'MB/s', better: 'higher', digits: 0 },
    { name: 'offload: verified / cp, same run', values: ratio, unit: '', better: 'higher', limit: 0.9, digits: 2 },
    { name: 'offload: CPU per GiB', values: cpu, unit: 's/GiB', better: 'lower', digits: 2, note: 'user + system of the whole offload, read-back included' },
  ];
}
