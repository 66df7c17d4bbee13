import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root, for the bench scripts. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs the built `capture-uploader` (dist/cli, as a user runs it) with `args`, following its peak
 * resident memory (VmHWM, read from /proc every 20 ms). Returns wall seconds and peak bytes.
 * Its stderr is kept only for the error. Throws Error naming the command (and the end of its
 * stderr) when it exits other than 0.
 */
export async function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<{ seconds: number; peakRss: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [`${ROOT}dist/cli/capture-uploader.js`, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env });
  // Warnings (one per odd file of a generated card) would drown the figures: kept for a failure only.
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  let peak = 0;
  const poll = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peak = Math.max(peak, Number(hwm[1]) * 1024);
    } catch {
      // the process has just exited
    }
  }, 20);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(poll);
  if (code !== 0) throw new Error(`capture-uploader ${args.join(' ')} exited with ${code}: ${stderr}`);
  return { seconds: (performance.now() - started) / 1000, peakRss: peak };
}
