import { GetObjectCommand } from '@aws-sdk/client-s3';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestService } from '../../e2e/service/testing.js';
import { randomCard, storedByName } from './e2e-card.js';
import { addArgs } from './e2e-cli.js';
import type { CliKit } from './kit.js';
import { MiB, sha256, spawnCli } from './kit.js';

/**
 * One run of "a drain that met an HTML 403 on a part" for e2e/drain-exit.test.ts and
 * scripts/drain-exit.ts: a card of two recordings of two 6 MiB lenses (two parts each), the
 * storage fault that answers one part PUT with a 403 page, `add`, then `drain`, watched from its
 * summary line on. Test code only.
 */

/** How one run went. Times in ms. */
export interface DrainExitRun {
  /** Which UploadPart the page answered (the fault's `skip`). */
  skip: number;
  /** The exit code of `drain`; null when it was killed for not exiting in time. */
  code: number | null;
  /** From the summary line to the exit (or to the kill); null when no summary was printed. */
  lateMs: number | null;
  /** Its share of a core (%) measured from /proc over a second before the kill, when it was killed. */
  cpuPercent?: number;
  /** Everything `add` and `drain` printed, in order. */
  out: string;
  /** Times the page was sent, parts storage stored and stored again during the drain. */
  fired: number;
  partsStored: number;
  partsReplaced: number;
  /** Lens files whose stored object differs from the file (or is missing). */
  differing: string[];
}

/** The lens size (bytes): two parts at the local service's 5 MiB. */
const LENS = 6 * MiB;

/** utime + stime of a process, in clock ticks (/proc/PID/stat fields 14 and 15). */
export function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Runs number `run` against `svc` in folder `work` (absolute): the page answers the part 1
 * after `skip` others (0–3: the card has four); `drain` is killed with SIGKILL when it has not exited `boundMs` after its
 * summary (its CPU share measured first). Throws when `add` does not exit 0.
 */
export async function drainPastRefusedPart(
  svc: TestService,
  work: string,
  run: number,
  skip: number,
  boundMs: number,
): Promise<DrainExitRun> {
  await svc.admin('DELETE', '/faults');
  // A part 1 (5 MiB, refused while its body is being sent): with four slots, the nth UploadPart to
  // arrive may be a lens's 1 MiB part 2 as well.
  const rule = {
    target: 'storage',
    operation: 'UploadPart',
    partNumber: 1,
    skip,
    times: 1,
    action: { type: 'html', status: 403 },
  };
  const posted = await svc.admin('POST', '/faults', rule);
  if (posted.status !== 201) throw new Error(`the service refused the fault rule: ${posted.status}`);
  const parent = join(work, `card-${run}`);
  mkdirSync(parent, { recursive: true });
  const seq = String(run % 1000).padStart(3, '0');
  const { card, files } = randomCard(
    parent,
    'DCIM-',
    ['080000', '081500'].flatMap((t) =>
      ['00', '10'].map((lens) => [`VID_20261127_${t}_${lens}_${seq}.insv`, LENS] as const),
    ),
  );
  const dataDir = join(work, `queue-${run}`);
  const added = await spawnCli(svc, dataDir, addArgs(svc.info.structures[0]!, [card])).done;
  if (added.code !== 0) throw new Error(`add exited ${added.code}: ${added.out}`);
  const before = { ...svc.storage.stats };
  const lines: { at: number; text: string }[] = [];
  const drain = spawnCli(svc, dataDir, ['drain'], { lines });
  const summaryAt = () => lines.find((l) => /file\(s\) completed/.test(l.text))?.at;
  let cpuPercent: number | undefined;
  let killAt: number | undefined;
  const watch = setInterval(() => {
    const at = summaryAt();
    if (at === undefined || killAt !== undefined) return;
    killAt = at + boundMs;
    const left = Math.max(0, killAt - performance.now());
    setTimeout(() => {
      if (drain.child.exitCode !== null || drain.child.signalCode !== null) return;
      // Still there past the bound: how busy it is says whether it spins or waits.
      const t0 = cpuTicks(drain.child.pid!);
      setTimeout(() => {
        try {
          cpuPercent = cpuTicks(drain.child.pid!) - t0; // ticks of 10 ms over 1 s: percent
        } catch {
          // it ended in that second after all
        }
        drain.child.kill('SIGKILL');
      }, 1000);
    }, left);
  }, 50);
  const res = await drain.done;
  clearInterval(watch);
  const endedAt = performance.now();
  const at = summaryAt();
  const differing: string[] = [];
  for (const [name, bytes] of files) {
    const stored = await storedByName(objectsOf(svc), name).catch(() => undefined);
    if (stored?.sha256 !== sha256(bytes)) differing.push(name);
  }
  const rules = ((await (await svc.admin('GET', '/faults')).json()) as { rules: { fired: number }[] }).rules;
  return {
    skip,
    code: res.code,
    lateMs: at === undefined ? null : endedAt - at,
    ...(cpuPercent !== undefined ? { cpuPercent } : {}),
    out: `${added.out}${res.out}`,
    fired: rules[0]?.fired ?? 0,
    partsStored: svc.storage.stats.partsStored - before.partsStored,
    partsReplaced: svc.storage.stats.partsReplaced - before.partsReplaced,
    differing,
  };
}

/**
 * What storedByName (e2e-card.ts) needs of a kit, for a bare service: the service, and what
 * storage holds under a key read through the S3 API (its bytes and SHA-256).
 */
export function objectsOf(svc: TestService): Pick<CliKit, 'svc' | 'object'> {
  return {
    svc,
    async object(key) {
      const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: key }));
      const bytes = Buffer.from(await res.Body!.transformToByteArray());
      return { bytes, sha256: sha256(bytes) };
    },
  };
}
