import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestService } from './service/testing.js';
import { fillQueue } from '../main/testing/fill-queue.js';
import { spawnCli, tempDir } from '../main/testing/kit.js';
import { queueIn } from '../main/testing/queue-rows.js';

// `status` and `log` read the queue read-only, but SQLite keeps a shared-memory file beside a
// queue in WAL mode, even to read it, and on a full disk that file cannot grow: SQLite says only
// "disk I/O error". The command says what a person can act on: the disk is full, where, and how
// much to free. An 8 MiB tmpfs (the tests run as root) is a disk that really fills.

/** No service is asked: `status` and `log` need none. */
const offline = {
  info: {
    baseUrl: 'http://127.0.0.1:9',
    authUrl: 'http://127.0.0.1:9',
    apiKey: 'k',
    projectId: 'p',
    account: { email: 'e@example.com', password: 'x' },
  },
} as unknown as Pick<TestService, 'info'>;

describe('reading the queue on a full disk', () => {
  it('status, status --json and log say the disk is full, where, and how much to free', async () => {
    const disk = tempDir('status-full-disk');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', disk.dir]);
    try {
      const dataDir = join(disk.dir, 'queue');
      const q = queueIn(dataDir);
      fillQueue(q, 3);
      q.db.close();
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${join(disk.dir, 'filler')}`, 'bs=64k'], { stdio: 'ignore' });
      } catch {
        // dd stops with ENOSPC: the disk is full, as wanted
      }
      for (const args of [['status'], ['--json', 'status'], ['log']]) {
        const r = await spawnCli(offline, dataDir, args).done;
        expect([args.join(' '), r.code, r.stderr]).toEqual([
          args.join(' '),
          2,
          `capture-uploader: The disk holding ${dataDir} is full: free 64 MB and run again. Nothing queued was lost.\n`,
        ]);
        expect(r.stdout).toBe('');
      }
    } finally {
      execFileSync('umount', [disk.dir]);
      disk.remove();
    }
  }, 60_000);
});
