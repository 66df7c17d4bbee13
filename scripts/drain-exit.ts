// npm run check:drain-exit [-- --runs 50] [--seed 20261127] [--bound-ms 5000]
//
// A drain that met an HTML 403 on a part must exit once it is done (docs/engine.md, "A drain
// that ends"). Each run queues a card of two recordings of two 6 MiB lenses with `add`, has the
// local service answer one part PUT (drawn from the seed) with a 403 page, runs `drain` and
// watches it from its summary line: a drain still running `--bound-ms` after it is measured from
// /proc and killed. The local service runs in this process, outside vitest, as a person's drain
// meets it; e2e/drain-exit.test.ts runs a few of the same runs in CI. Prints each run and the
// figures (runs, exits within the bound, the median and longest time from summary to exit), each
// failing run with the command that replays it, and `uptime` (figures under load say so); exits
// 1 when a run failed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestService } from '../e2e/service/testing.js';
import { drainPastRefusedPart } from '../main/testing/drain-exit.js';
import { prng } from '../main/testing/kit.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '50' },
    seed: { type: 'string', default: '20261127' },
    'bound-ms': { type: 'string', default: '5000' },
    // Replays one run of a seed: the draws before it are made and thrown away.
    only: { type: 'string' },
  },
});
const RUNS = Number(flags.runs);
const SEED = Number(flags.seed);
const BOUND_MS = Number(flags['bound-ms']);
const ONLY = flags.only === undefined ? undefined : Number(flags.only);

const svc = await startTestService();
const work = mkdtempSync(join(tmpdir(), 'drain-exit-'));
const random = prng(SEED);
const late: number[] = [];
const failed: string[] = [];
try {
  for (let run = 0; run < RUNS; run++) {
    // The first part of one of the four lenses (as e2e/drain-exit.test.ts draws it).
    const skip = Math.floor(random() * 4);
    if (ONLY !== undefined && run !== ONLY) continue;
    const r = await drainPastRefusedPart(svc, work, run, skip, BOUND_MS);
    const problems = [
      r.lateMs === null ? 'no summary' : '',
      r.code !== 0
        ? r.code === null
          ? `still running past the bound (${r.cpuPercent ?? '?'}% of a core)`
          : `exit ${r.code}`
        : '',
      r.fired !== 1 ? `page sent ${r.fired} times` : '',
      r.partsStored !== 8 || r.partsReplaced !== 0 ? `${r.partsStored} parts stored, ${r.partsReplaced} twice` : '',
      r.differing.length ? `differs: ${r.differing.join(', ')}` : '',
    ].filter(Boolean);
    if (r.lateMs !== null && r.code === 0) late.push(r.lateMs);
    const line = `run ${run}: page on the part 1 number ${skip + 1} to arrive, exit ${r.code ?? 'killed'}, ${r.lateMs === null ? '-' : Math.round(r.lateMs)} ms after the summary${problems.length ? ` — ${problems.join('; ')}` : ''}`;
    process.stdout.write(`${line}\n`);
    if (problems.length)
      failed.push(`${line}\n  replay: npm run check:drain-exit -- --seed ${SEED} --runs ${run + 1} --only ${run}`);
  }
} finally {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
}
const sorted = [...late].sort((a, b) => a - b);
const ran = ONLY === undefined ? RUNS : 1;
process.stdout.write(
  `\n${ran} run(s), seed ${SEED}: ${late.length} exited within ${BOUND_MS} ms of the summary; median ${sorted.length ? Math.round(sorted[Math.floor(sorted.length / 2)]!) : '-'} ms, longest ${sorted.length ? Math.round(sorted.at(-1)!) : '-'} ms\n`,
);
process.stdout.write(`uptime: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}\n`);
for (const f of failed) process.stdout.write(`FAILED ${f}\n`);
process.exitCode = failed.length ? 1 : 0;
