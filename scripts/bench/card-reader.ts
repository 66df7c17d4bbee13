// `npm run bench -- --only reader [--reader-gib N]`: "Card safe to remove" from a card at reader
// speed, against `cp -r` + `sync` of the same card. The card is an exFAT image on a loop device,
// mounted with exfat-fuse (Debian's exfat-fuse and exfatprogs), whose reads of the loop device are
// throttled by the blkio cgroup (v1, `blkio.throttle.read_bps_device`) to 90 MB/s (UHS-I) and
// 250 MB/s (UHS-II): the FUSE daemon is started inside the throttled group, so every read of the
// card passes the throttle. Caches are dropped (`sync; echo 3 > /proc/sys/vm/drop_caches`) before
// each copy, so no copy reads the card from memory. Each run copies the card three ways, in turn:
// `cp -r` then `sync`; the offload of the whole card without placement; and the offload with
// placement as `import --structure` and the app's Import run it (recorded in a queue as it goes,
// each recording handed on as it verifies, no part MD5: the upload computes them,
// docs/decisions/0030-part-md5-at-upload.md). Prints each offload's ratio to that run's
// cp+sync (target ≥ 0.9).
// Needs root (losetup, mount, cgroups, drop_caches); without it, says so and measures nothing.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, rmdirSync, writeFileSync, writeSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { offloadCard } from '../../main/offload/offload.js';
import type { OffloadResult } from '../../main/offload/offload.js';
import { OffloadRecorder } from '../../main/offload/record.js';
import { openQueueDatabase } from '../../main/queue/db.js';
import { QueueMeta } from '../../main/queue/meta.js';
import type { Figure } from './figures.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const CGROUP = '/sys/fs/cgroup/blkio/capture-bench-reader';

/** Runs a command, throwing with its stderr when it fails. */
const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

/** Whether this machine can build the throttled exFAT card: root, the tools, the blkio controller. */
function readerBenchProblem(): string | null {
  if (process.getuid?.() !== 0) return 'needs root (losetup, mount, the blkio cgroup, drop_caches)';
  for (const tool of ['losetup', 'mkfs.exfat', 'mount.exfat-fuse'])
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      return `${tool} is missing (apt-get install exfatprogs exfat-fuse)`;
  if (!existsSync('/sys/fs/cgroup/blkio')) return 'no blkio cgroup (v1) controller mounted';
  return null;
}

/** Writes the card's files: recordings of two 256 MiB lenses, with each one's LRV preview (a tenth) and thumbnail, and MISC/. */
function writeCardFiles(root: string, gib: number): void {
  const dir = join(root, 'DCIM', 'Camera01');
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(root, 'MISC'), { recursive: true });
  const block = randomBytes(32 * MiB);
  const lensBytes = 256 * MiB;
  const recordings = Math.max(1, Math.round((gib * GiB) / (2.1 * lensBytes)));
  const write = (path: string, bytes: number, tag: string) => {
    const fd = openSync(path, 'w');
    try {
      for (let done = 0; done < bytes; done += block.length)
        writeSync(fd, block, 0, Math.min(block.length, bytes - done), done);
      writeSync(fd, Buffer.from(tag), 0, undefined, 0); // no two files the same
    } finally {
      closeSync(fd);
    }
  };
  for (let i = 0; i < recordings; i++) {
    const at = `20261124_08${String(i).padStart(2, '0')}00`;
    const nnn = String(i + 1).padStart(3, '0');
    for (const lens of ['00', '10']) write(join(dir, `VID_${at}_${lens}_${nnn}.insv`), lensBytes, `${i}-${lens}`);
    write(join(dir, `LRV_${at}_11_${nnn}.insv`), Math.floor(lensBytes / 5), `${i}-lrv`);
    write(join(dir, `VID_${at}_11_${nnn}.thm`), 48 * 1024, `${i}-thm`);
  }
  writeFileSync(join(root, 'MISC', 'version.txt'), 'fw v1.0\n');
}

/** A throttled exFAT card: built, mounted, and undone by `close`. */
interface ReaderCard {
  root: string;
  bytes: number;
  /** Sets the card's read rate in bytes per second. */
  throttle(bytesPerSecond: number): void;
  close(): void;
}

/** Builds an exFAT image of the card's size (plus room), puts it on a loop device, mounts it with exfat-fuse in the throttled group, and writes the card. */
function buildCard(work: string, gib: number): ReaderCard {
  const image = join(work, 'card.img');
  const root = join(work, 'X4_CARD');
  mkdirSync(root);
  execFileSync('truncate', ['-s', String(Math.ceil(gib * 1.25 * GiB + 256 * MiB)), image]);
  const dev = run('losetup', ['-f', '--show', image]).trim();
  let mounted = false;
  const close = () => {
    // A file still open on the card (an offload stopped by an error) makes umount refuse: detached lazily then.
    if (mounted && spawnSync('umount', [root]).status !== 0) spawnSync('umount', ['-l', root]);
    spawnSync('losetup', ['-d', dev]);
    try {
      rmdirSync(CGROUP);
    } catch {
      // Still held by a process that has not ended yet: the kernel keeps an empty group harmlessly.
    }
  };
  try {
    run('mkfs.exfat', ['-n', 'X4_CARD', dev]);
    mkdirSync(CGROUP, { recursive: true });
    const majMin = run('lsblk', ['-dno', 'MAJ:MIN', dev]).trim();
    // The FUSE daemon is started from a shell that first joins the group: it and its reads stay there.
    run('sh', ['-c', `echo $$ > "$0/cgroup.procs" && exec mount.exfat-fuse "$1" "$2"`, CGROUP, dev, root]);
    mounted = true;
    writeCardFiles(root, gib);
    run('sync', []);
    const bytes = Number(run('du', ['-sb', '--apparent-size', root]).split('\t')[0]);
    return {
      root,
      bytes,
      throttle: (bps) => writeFileSync(join(CGROUP, 'blkio.throttle.read_bps_device'), `${majMin} ${bps}`),
      close,
    };
  } catch (err) {
    close();
    throw err;
  }
}

/** Flushes dirty pages and drops the page cache (the card's, the library's), so the next copy reads the card itself. */
const dropCaches = () => {
  run('sync', []);
  writeFileSync('/proc/sys/vm/drop_caches', '3');
};

/** The reader figures, `runs` of each at 90 and 250 MB/s, in `work` (left for the caller to remove). */
export async function readerFigures(work: string, gib: number, runs: number): Promise<Figure[]> {
  const problem = readerBenchProblem();
  if (problem) {
    console.log(`reader: not measured: ${problem}. Run it as root on Linux with exfat-fuse and exfatprogs.`);
    return [];
  }
  const card = buildCard(work, gib);
  const figures: Figure[] = [];
  const load = (when: string) =>
    console.log(
      `reader: load average ${when}: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')} (1, 5, 15 min; 2 cores, shared with other work)`,
    );
  try {
    console.log(
      `reader: an exFAT card of ${(card.bytes / GiB).toFixed(2)} GiB on a loop device, mounted with exfat-fuse, reads throttled by blkio; caches dropped before each copy`,
    );
    load('before');
    for (const [label, bps] of [
      ['UHS-I 90 MB/s', 90e6],
      ['UHS-II 250 MB/s', 250e6],
    ] as const) {
      card.throttle(bps);
      const cp: number[] = [];
      const plain: number[] = [];
      const placed: number[] = [];
      for (let r = 0; r < runs; r++) {
        const dest = join(work, `cp-${r}`);
        dropCaches();
        let t = performance.now();
        run('sh', ['-c', 'cp -r "$0" "$1" && sync', card.root, dest]);
        cp.push((performance.now() - t) / 1000);
        rmSync(dest, { recursive: true, force: true });

        // Without placement: the whole card copied and verified, timed to "safe to remove".
        dropCaches();
        t = performance.now();
        check(await offloadCard(card.root, { library: join(work, `lib-${r}`), wholeCard: true }));
        plain.push((performance.now() - t) / 1000);
        rmSync(join(work, `lib-${r}`), { recursive: true, force: true });

        // With placement as import runs it: recorded in the queue as it goes, each recording
        // handed on as it verifies (its queue rows: a commit), no part MD5.
        const { db } = openQueueDatabase(join(work, `queue-${r}.db`));
        const meta = new QueueMeta(db);
        dropCaches();
        t = performance.now();
        check(
          await offloadCard(card.root, {
            library: join(work, `lib-placed-${r}`),
            wholeCard: true,
            journal: new OffloadRecorder(() => db),
            onRecording: (files) => meta.set(`bench-${label}-${r}-${files[0]!.source}`, files[0]!.copy),
          }),
        );
        placed.push((performance.now() - t) / 1000);
        rmSync(join(work, `lib-placed-${r}`), { recursive: true, force: true });
        db.close();
      }
      const rate = (s: number) => card.bytes / 1e6 / s;
      figures.push(
        { name: `reader ${label}: cp -r + sync`, values: cp.map(rate), unit: 'MB/s', better: 'higher', digits: 0 },
        {
          name: `reader ${label}: safe to remove / cp+sync`,
          values: plain.map((s, i) => cp[i]! / s),
          unit: '',
          better: 'higher',
          limit: 0.9,
          digits: 2,
          note: 'whole card, no placement',
        },
        {
          name: `reader ${label}: with placement / cp+sync`,
          values: placed.map((s, i) => cp[i]! / s),
          unit: '',
          better: 'higher',
          limit: 0.9,
          digits: 2,
          note: 'whole card, recorded, each recording handed on; part MD5s left to the upload',
        },
      );
    }
    load('after');
  } finally {
    card.close();
  }
  return figures;
}

/** Throws when an offload did not verify: its time would not be "safe to remove". */
function check(r: OffloadResult): void {
  const bad = [...r.files, ...r.others].filter((f) => !f.verified);
  if (bad.length) throw new Error(`bench: the offload did not verify: ${bad.map((f) => f.error).join('; ')}`);
}
