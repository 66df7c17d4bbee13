// npm run test:quick [-- --base REF]
//
// The suite a person runs before a commit, in minutes on a 2-core machine (docs/testing.md,
// "Which tests to run when"): the typecheck kept incremental (its state in node_modules/.cache, so
// only what changed since the last run is checked again; the first run checks everything), lint
// and formatting of the files changed since REF (default HEAD: the work not yet committed, new
// files included), and the unit tests (vitest's `unit` project) but the few slow ones (SLOW_UNIT).
// Those, the Node end-to-end tests, the local service's contract tests and the browser suite are
// left to `npm test`, which CI runs.
// Prints each step's time and the total; exits 1 when a step failed, after running them all.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './measure.js';

const { values: flags } = parseArgs({ options: { base: { type: 'string', default: 'HEAD' } } });

/**
 * The unit tests left to `npm test`: each took 2 s or more on this 2-core machine, nearly all of
 * it waiting on the wall clock (a link at 32 KiB/s, stall timeouts and deadlines, heartbeats, a
 * service process started and killed), 746 s of the unit project's 802 s. The rest, about 140
 * files, take under a minute together. A slow test added later only makes this run longer, which
 * the printed times show; add it here then.
 */
const SLOW_UNIT = [
  'eslint.config.test.ts',
  'main/api/json-deadline.test.ts',
  'main/api/json-idle-timeout.test.ts',
  'main/electron/login-start-shell.test.ts',
  'main/electron/main.test.ts',
  'main/electron/support-report.test.ts',
  'main/engine/parts/answer-allowance.test.ts',
  'main/engine/parts/answer-settle.test.ts',
  'main/engine/progress/batch.test.ts',
  'main/engine/parts/buffering-proxy.test.ts',
  'main/engine/outages/card-pulled.test.ts',
  'main/engine/engine.test.ts',
  'main/engine/scheduling/fair-order.test.ts',
  'main/engine/front.test.ts',
  'main/engine/parts/in-doubt.test.ts',
  'main/engine/parts/integrity.test.ts',
  'main/engine/scheduling/overnight.test.ts',
  'main/engine/parts/part-deadline.test.ts',
  'main/engine/parts/part-md5.test.ts',
  'main/engine/parts/part-put.test.ts',
  'main/engine/parts/presign-answer.test.ts',
  'main/engine/scheduling/scheduler.test.ts',
  'main/engine/outages/silent-gateway.test.ts',
  'main/engine/outages/slow-link.test.ts',
  'main/engine/parts/storage-answers.test.ts',
  'main/engine/outages/storage-lost.test.ts',
  'main/engine/tolerant-reader.test.ts',
  'main/engine/outages/trickle-gateway.test.ts',
  'main/engine/scheduling/upload-limits.test.ts',
  'main/queue/activity.test.ts',
  'main/queue/queue.test.ts',
  'main/service/app-core.test.ts',
  'main/service/app-queue-busy.test.ts',
  'main/service/card-imports.test.ts',
  'main/service/copy-hold-restart.test.ts',
  'main/service/copy-hold.test.ts',
  'main/service-host/host.test.ts',
  'main/service-host/idle-cpu.test.ts',
  'main/updates/attacks.test.ts',
  'scripts/release-sign/repository.test.ts',
];
const CACHE = join(ROOT, 'node_modules', '.cache', 'test-quick');
mkdirSync(CACHE, { recursive: true });
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

/** The files changed since `base` that still exist (tracked ones changed, and new ones not ignored). */
function changedFiles(base: string): string[] {
  const git = (args: string[]) => {
    const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr.trim()}`);
    return r.stdout.split('\n').filter(Boolean);
  };
  const files = new Set([
    ...git(['diff', '--name-only', '--diff-filter=ACMR', base]),
    ...git(['ls-files', '--others', '--exclude-standard']),
  ]);
  return [...files].filter((f) => existsSync(join(ROOT, f))).sort();
}

const steps: { name: string; ms: number; ok: boolean }[] = [];

/** Runs `command` with `args` in the checkout, its output passed through, and records the step. */
function step(name: string, command: string, args: string[]): void {
  console.log(`\n== ${name}`);
  const t0 = performance.now();
  const r = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  const ms = performance.now() - t0;
  const ok = r.status === 0;
  steps.push({ name, ms, ok });
  console.log(`== ${name}: ${ok ? 'passed' : 'FAILED'} in ${(ms / 1000).toFixed(1)} s`);
}

const t0 = performance.now();
step('typecheck (incremental)', bin('tsc'), [
  '-p',
  'tsconfig.json',
  '--noEmit',
  '--incremental',
  '--tsBuildInfoFile',
  join(CACHE, 'tsc.tsbuildinfo'),
]);
const changed = changedFiles(flags.base);
const linted = changed.filter((f) => /\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(f));
const formatted = changed.filter((f) => /\.(ts|tsx|mts|cts|js|mjs|cjs|json|md|ya?ml|css|html)$/.test(f));
if (linted.length)
  step(`eslint of ${linted.length} changed file(s)`, bin('eslint'), [
    '--cache',
    '--cache-location',
    join(CACHE, 'eslint'),
    '--no-warn-ignored',
    ...linted,
  ]);
else console.log(`\n== eslint: no changed source files since ${flags.base}`);
if (formatted.length)
  step(`prettier of ${formatted.length} changed file(s)`, bin('prettier'), [
    '--check',
    '--ignore-unknown',
    ...formatted,
  ]);
step(`unit tests but the ${SLOW_UNIT.length} slow files`, bin('vitest'), [
  'run',
  '--project',
  'unit',
  ...SLOW_UNIT.flatMap((f) => ['--exclude', f]),
]);

const total = performance.now() - t0;
console.log('\ntest:quick');
for (const s of steps)
  console.log(`  ${s.ok ? 'passed' : 'FAILED'}  ${(s.ms / 1000).toFixed(1).padStart(6)} s  ${s.name}`);
console.log(`  total ${(total / 1000).toFixed(1)} s (target under 5 min on a 2-core machine)`);
console.log(
  `  not run here: ${SLOW_UNIT.length} slow unit test files, the Node end-to-end tests, the contract tests, the browser suite (npm test)`,
);
process.exitCode = steps.every((s) => s.ok) ? 0 : 1;
