import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ServiceExit, UtilityChild, UtilityProcessApi } from './spawn.js';
import { spawnService } from './spawn.js';

// The service's process as the app starts it (Electron's utilityProcess), played by a stand-in
// whose kill() is Electron's: SIGTERM, which a stopped process holds until it runs again.
const work = mkdtempSync(join(tmpdir(), 'spawn-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const utility: UtilityProcessApi = {
  fork(modulePath) {
    const child = fork(modulePath, [], { serialization: 'advanced', stdio: 'ignore' });
    const utilityChild = {
      get pid() {
        return child.pid;
      },
      postMessage: (m: unknown) => void child.send(m as never),
      on(event: string, l: (x: unknown) => void) {
        if (event === 'exit') child.on('exit', (code) => l(code ?? 0));
        else child.on('message', l);
        return utilityChild;
      },
      // Electron's: SIGTERM.
      kill: () => child.kill(),
    };
    return utilityChild as UtilityChild;
  },
};

describe('the service process started as a utility process', () => {
  it('stopped with SIGSTOP, it is ended by kill("SIGKILL"), not left stopped by a SIGTERM it cannot take', async () => {
    const entry = join(work, 'idle.mjs');
    writeFileSync(entry, 'setInterval(() => {}, 1000);');
    const proc = spawnService(entry, utility);
    const exited = new Promise<ServiceExit>((resolve) => proc.onExit(resolve));
    await new Promise((r) => setTimeout(r, 300));
    const pid = proc.pid!;
    process.kill(pid, 'SIGSTOP');
    try {
      proc.kill('SIGKILL');
      const end = await Promise.race([
        exited,
        new Promise<'still there'>((r) => setTimeout(() => r('still there'), 5000)),
      ]);
      expect(end).not.toBe('still there');
      expect(() => process.kill(pid, 0)).toThrow();
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Ended.
      }
    }
  });
});
