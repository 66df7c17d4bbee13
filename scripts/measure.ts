import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, for the bench scripts. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What one run of the CLI cost: wall seconds from spawn to exit, CPU seconds (user + system) and peak resident memory (bytes). */
export interface CliRun {
  seconds: number;
  cpuSeconds: number;
  peakRss: number;
  /** With `traceWrites`: the bytes the process had written to sockets (/proc's `wchar`, all writes, less `write_bytes`, those to files: the queue's) every 10 ms, `t` in ms since spawn. */
  writes: { t: number; bytes: number }[];
}

let cli = `${ROOT}dist/cli/capture-uploader.js`;

/**
 * Makes runCli run the built CLI at `entry` (a `capture-uploader.js`) from now on, and returns the
 * one it ran before: `npm run bench -- --baseline REF` measures another commit's build this way
 * (scripts/bench/baseline.ts). Default: this tree's dist/cli.
 */
export function useCli(entry: string): string {
  const before = cli;
  cli = entry;
  return before;
}

/** Node's flags on the built CLI's bin line (`#!/usr/bin/env -S node FLAGS`), so a measured run starts as the installed command does. */
function binFlags(): string[] {
  const line = readFileSync(cli, 'utf8').slice(0, 200).split('\n')[0]!;
  return /^#!\/usr\/bin\/env (?:-S )?node(.*)$/.exec(line)?.[1]!.trim().split(/\s+/).filter(Boolean) ?? [];
}

/**
 * Runs the built `capture-uploader` (dist/cli, or the build useCli named, with the flags of its bin line, as a user runs it) with `args`. CPU time and peak
 * RSS come from the child's own getrusage, written at exit by scripts/rusage-probe.mjs (loaded
 * with --import), because Node cannot read a child's rusage and polling /proc misses the last
 * moments. With `traceWrites`, /proc/PID/io is read every 10 ms (Linux) so a rate can be taken
 * from the first byte sent rather than from process start. With BENCH_CPU_PROF=DIR set, the child also writes a V8 CPU profile into DIR.
 * Its stderr is kept only for the error. Throws Error naming the command (and the end of its
 * stderr) when it exits other than 0, or when the probe wrote nothing.
 */
export async function runCli(env: NodeJS.ProcessEnv, args: string[], traceWrites = false): Promise<CliRun> {
  const probeDir = mkdtempSync(join(tmpdir(), 'capture-rusage-'));
  const probeFile = join(probeDir, 'rusage.json');
  const profDir = process.env.BENCH_CPU_PROF;
  const nodeArgs = [
    ...binFlags(),
    '--import',
    `${ROOT}scripts/rusage-probe.mjs`,
    ...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []),
  ];
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, cli, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...env, CAPTURE_RUSAGE_FILE: probeFile },
  });
  // Warnings (one per odd file of a generated card) would drown the figures: kept for a failure only.
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const writes: { t: number; bytes: number }[] = [];
  const trace = traceWrites
    ? setInterval(() => {
        try {
          const io = readFileSync(`/proc/${child.pid}/io`, 'utf8');
          const wchar = /wchar: (\d+)/.exec(io);
          const disk = /^write_bytes: (\d+)/m.exec(io);
          if (wchar && disk) writes.push({ t: performance.now() - started, bytes: Number(wchar[1]) - Number(disk[1]) });
        } catch {
          // the process has just exited
        }
      }, 10)
    : undefined;
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(trace);
  const seconds = (performance.now() - started) / 1000;
  try {
    if (code !== 0) throw new Error(`capture-uploader ${args.join(' ')} exited with ${code}: ${stderr}`);
    const usage = JSON.parse(readFileSync(probeFile, 'utf8')) as {
      userCPUTime: number;
      systemCPUTime: number;
      maxRSS: number;
    };
    // resourceUsage(): CPU times in µs, maxRSS in KiB.
    return {
      seconds,
      cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
      peakRss: usage.maxRSS * 1024,
      writes,
    };
  } finally {
    rmSync(probeDir, { recursive: true, force: true });
  }
}
