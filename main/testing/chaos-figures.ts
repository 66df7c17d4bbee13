import type { ChaosRunResult } from './chaos-run.js';
import type { ChaosPlanOptions } from './chaos-plan.js';
import { replayCommand } from './chaos-plan.js';

/**
 * The chaos check's figures over many runs (docs/testing.md#the-chaos-check): runs and failing
 * seeds with the command that replays each, faults drawn and fired, kills, parts stored twice and
 * why, the longest time from a drain's summary to its exit. Test code only.
 */

/** The figures of `results`, as the lines `npm run chaos` prints. */
export function chaosFigures(results: readonly ChaosRunResult[], opts: ChaosPlanOptions = {}): string[] {
  const failing = results.filter((r) => r.violations.length > 0);
  const kills = results.flatMap((r) => r.kills);
  const delivered = kills.filter((k) => k.delivered);
  const bySignal = tally(delivered.map((k) => `${k.signal} during ${k.step}`));
  const doubles = results.flatMap((r) => r.doubles);
  const byWhy = tally(doubles.map((d) => d.why));
  const max = (xs: (number | null)[]) => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? `${(Math.max(...v) / 1000).toFixed(2)} s` : 'none';
  };
  const lines = [
    `runs: ${results.length}, failing: ${failing.length}${opts.answers ? ' (with --answers)' : ''}`,
    `faults drawn: ${sum(results.map((r) => r.faultsDrawn))}, acted: ${sum(results.map((r) => r.faultsFired))} times`,
    `kills drawn: ${sum(results.map((r) => r.plan.kills.length))}, delivered: ${delivered.length}${delivered.length ? ` (${bySignal})` : ''} (one is not sent when its process ended first, or the queue was done)`,
    `parts stored twice: ${doubles.length}${doubles.length ? ` (${byWhy})` : ''}`,
    `registrations left unknown: ${sum(results.map((r) => r.unknown))}, of them dropped by the person (the platform had them): ${sum(results.map((r) => r.dropped))}`,
    `longest from a drain's summary to its exit: ${max(results.map((r) => r.summaryToExitMs))}; from any process's last line to its exit: ${max(results.map((r) => r.lastLineToExitMs))}`,
    `time: ${(sum(results.map((r) => r.durationMs)) / 1000).toFixed(0)} s in all, ${max(results.map((r) => r.durationMs))} the longest run`,
  ];
  for (const r of failing) {
    lines.push(`FAILED seed ${r.plan.seed}: replay with \`${replayCommand(r.plan.seed, opts)}\``);
    for (const v of r.violations) lines.push(`  ${v.check}: ${v.detail}`);
  }
  return lines;
}

/** The plan and transcript of one run, for a replay: what was drawn, each process, how it ended and its last lines. */
export function chaosTranscript(r: ChaosRunResult): string[] {
  const { plan } = r;
  const lines = [
    `seed ${plan.seed}: ${plan.target === 'cli' ? `the CLI (${plan.queueBy}, --concurrency ${plan.concurrency})` : 'the upload service process'}; ` +
      `${plan.recordings.length} recording(s): ${plan.recordings.map((rec) => rec.files.map((f) => `${f.name} ${f.size} B`).join(' + ')).join('; ')}; ` +
      `storage at ${(plan.bandwidth / 1024 / 1024).toFixed(1)} MiB/s until the faults clear ${plan.healAtMs} ms after the first part PUT`,
    ...plan.faults.map(
      (f) =>
        `  fault ${f.atMs} ms after the first ${f.anchor === 'upload' ? 'part PUT' : 'request'}: ${f.kind}${f.rule ? ` ${JSON.stringify(f.rule)}` : ` ${JSON.stringify(f.settings)}`}`,
    ),
    ...plan.kills.map((k) => `  kill: ${k.signal} during ${k.step}, ${k.afterMs} ms after its first request`),
  ];
  for (const p of r.processes) {
    const how = p.code !== null ? `exit ${p.code}` : p.signal ? `killed by ${p.signal}` : 'running';
    const took = p.exitAt === undefined ? '' : ` after ${((p.exitAt - p.spawnAt) / 1000).toFixed(1)} s`;
    const sent = p.sent ? ` (sent ${p.sent.signal} ${((p.sent.at - p.spawnAt) / 1000).toFixed(1)} s in)` : '';
    lines.push(`  ${p.label}: ${how}${took}${sent}`);
    for (const l of p.lines.slice(-4)) lines.push(`    | ${l.text}`);
  }
  for (const f of r.firings) lines.push(`  acted ${f.atMs} ms into the run on ${f.operation}: ${f.kind}`);
  for (const d of r.doubles) lines.push(`  part ${d.part} of ${d.file} stored twice: ${d.why}`);
  return lines;
}

function tally(xs: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
