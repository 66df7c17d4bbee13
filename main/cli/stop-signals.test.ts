import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A command's last moments: its work is over and it has stopped listening (off, end), while the
// queue and its sockets close. The chaos check found a drain that had printed its summary die by
// SIGHUP itself there (Node's default), which a supervisor reads as a kill mid-work.

const MODULE = fileURLToPath(new URL('./stop-signals.ts', import.meta.url));

/** Runs a child that watches the stop signals, ends the watch, says "ended" and winds down for `windDownMs`. */
function child(windDownMs: number) {
  const code = `
    const { watchStopSignals } = await import(${JSON.stringify(MODULE)});
    const stop = watchStopSignals();
    stop.end();
    process.stdout.write('ended\\n');
    setTimeout(() => {}, ${windDownMs});
  `;
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('exit', (c, s) => resolve({ code: c, signal: s })),
  );
  const ended = new Promise<void>((resolve) => {
    const check = () => (stdout.includes('ended') ? resolve() : setTimeout(check, 10));
    check();
  });
  return { proc, done, ended, stderr: () => stderr };
}

describe('a signal as the command ends', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)(
    '%s after the watch ended exits at once with %i and one line, not by the signal itself',
    async (signal, status) => {
      const c = child(20_000);
      await c.ended;
      const sent = performance.now();
      c.proc.kill(signal);
      const res = await c.done;
      expect(res).toEqual({ code: status, signal: null });
      expect(performance.now() - sent).toBeLessThan(5_000);
      expect(c.stderr()).toBe(`Stopped by ${signal} as the command was ending: nothing was in flight any more.\n`);
    },
  );

  it('keeps nothing alive: with no signal the process ends by itself, status 0', async () => {
    const c = child(0);
    expect(await c.done).toEqual({ code: 0, signal: null });
    expect(c.stderr()).toBe('');
  });
});
