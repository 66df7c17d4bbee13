// The chaos check on demand (docs/testing.md#the-chaos-check): random fault schedules drawn from
// printed seeds, in the style of FoundationDB's simulation tests and Jepsen's nemeses, run one at a
// time against the local service started in this process.
//
//   npm run chaos -- --runs 200            # seeds 1…200 (--from S: S…S+199)
//   npm run chaos -- --seed 17             # one seed, with its plan and transcript
//   npm run chaos -- --runs 50 --answers   # also bad part lists, empty finalize answers, hostile ids
//
// Prints each failing seed with the command that replays it, then the figures; exits 1 when a
// run failed, 0 when none did. Ctrl-C stops it after the run under way, with the figures so far.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestService } from '../e2e/service/testing.js';
import { buildCli } from '../main/testing/built-cli.js';
import { chaosFigures, chaosTranscript } from '../main/testing/chaos-figures.js';
import { CHAOS_PART_SIZE, drawPlan, replayCommand } from '../main/testing/chaos-plan.js';
import type { ChaosRunResult } from '../main/testing/chaos-run.js';
import { runChaos } from '../main/testing/chaos-run.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    from: { type: 'string', default: '1' },
    seed: { type: 'string', multiple: true },
    answers: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});

const opts = { answers: values.answers };
const seeds = values.seed?.length
  ? values.seed.map(Number)
  : Array.from({ length: Number(values.runs ?? 20) }, (_, i) => Number(values.from) + i);
if (seeds.some((s) => !Number.isSafeInteger(s))) {
  process.stderr.write('chaos: --seed, --from and --runs take whole numbers\n');
  process.exit(2);
}
const one = values.seed?.length === 1;

const work = mkdtempSync(join(tmpdir(), 'chaos-'));
// The CLI as it ships: it starts in a third of the time and CPU of the source through tsx.
const built = buildCli('cli-chaos');
const svc = await startTestService({ partSize: CHAOS_PART_SIZE });
const results: ChaosRunResult[] = [];
// Stopped from the terminal (or by a signal): the run under way ends where it is; the folders go.
let stopping: NodeJS.Signals | undefined;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.once(signal, () => {
    stopping = signal;
    process.stderr.write(`chaos: ${signal}: stopping after this run\n`);
  });
try {
  for (const seed of seeds) {
    if (stopping) break;
    const result = await runChaos({ svc, work, cli: built.entry }, drawPlan(seed, opts));
    results.push(result);
    // Each run's folder goes once it is judged: 200 cards would fill a small disk.
    rmSync(join(work, `run-${seed}${opts.answers ? '-answers' : ''}`), { recursive: true, force: true });
    const verdict = result.violations.length
      ? `FAILED (${result.violations.map((v) => v.check).join(', ')}): ${replayCommand(seed, opts)}`
      : 'ok';
    process.stdout.write(`seed ${seed}: ${verdict} (${(result.durationMs / 1000).toFixed(1)} s)\n`);
    if (one || values.verbose || result.violations.length)
      for (const line of chaosTranscript(result)) process.stdout.write(`${line}\n`);
  }
} finally {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
  built.remove();
}
process.stdout.write('\n');
for (const line of chaosFigures(results, opts)) process.stdout.write(`${line}\n`);
process.exitCode = stopping
  ? { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 }[stopping as 'SIGHUP' | 'SIGINT' | 'SIGTERM']
  : results.some((r) => r.violations.length)
    ? 1
    : 0;
