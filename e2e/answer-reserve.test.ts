import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFakeCard } from '../main/card/fake-card.js';
import type { FaultRuleInput, TestService } from './service/testing.js';
import { startTestService, uploaderEnv } from './service/testing.js';

// A registration the platform accepted is never lost to a full disk (main/queue/answer-reserve.ts,
// docs/decisions/change-answer-reserve.md): the queue's folder is on a small tmpfs (the tests run
// as root, as e2e/cli-exit.test.ts's full-disk test does) that fills while the third add-capture
// answer is on its way. The CLI runs as a child against the local service.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'main/cli/index.ts');

let svc: TestService;
let work: string;
let disk: string;
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'answer-reserve-'));
  disk = join(work, 'disk');
  mkdirSync(disk);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', disk]);
});
afterAll(async () => {
  await svc.stop();
  execFileSync('umount', [disk]);
  rmSync(work, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(dataDir: string, args: string[]): Promise<Ran> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...uploaderEnv(svc.info, dataDir), NODE_NO_WARNINGS: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

const fault = async (rule: FaultRuleInput) => expect((await svc.admin('POST', '/faults', rule)).status).toBe(201);
const faultsSeen = async () =>
  ((await (await svc.admin('GET', '/faults')).json()) as { rules: { seen: number }[] }).rules.map((r) => r.seen);
const until = async (cond: () => Promise<boolean> | boolean, ms = 60_000) => {
  for (const end = Date.now() + ms; !(await cond()); ) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
};

/** Fills the tmpfs to the last byte (dd stops with ENOSPC). */
function fill(path: string): void {
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${path}`, 'bs=64k'], { stdio: 'ignore' });
  } catch {
    // ENOSPC: full, as wanted
  }
}

describe('the disk under the queue fills while an add-capture answer is on its way', () => {
  it('a 20-recording card, the disk full after two registrations: the third answer is recorded; once there is room, 20 captures, 40 of 40 files stored, drain exits 0, nothing waits for a person', async () => {
    const card = writeFakeCard(join(work, 'X4_SD'), { recordings: 20 });
    const names = card.recordings.map((p) => basename(p));
    const dataDir = join(disk, 'queue');
    // The third add-capture is held 3 s at the service: the disk fills while its answer is on its way.
    await fault({
      target: 'gateway',
      operation: 'add-capture',
      skip: 2,
      times: 1,
      action: { type: 'latency', ms: 3000 },
    });
    const adding = cli(dataDir, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', card.root]);
    // Seen counts the two let through; the other lane goes on meanwhile, so more may follow.
    await until(async () => ((await faultsSeen())[0] ?? 0) >= 3);
    fill(join(disk, 'filler'));
    const added = await adding;

    // The disk is full: registering stopped, saying so (exit 2); the answers on their way then
    // (the third's, held at the service, and the other lane's) were recorded all the same.
    expect(added.code, added.stdout + added.stderr).toBe(2);
    expect(added.stderr).toMatch(/The disk holding .* is full/);
    expect(added.stdout + added.stderr).toMatch(
      /Capture \d+ ".*": registered as \w+, recorded in the room kept in reserve for it \(the disk is full\)/,
    );
    expect(added.stdout).toMatch(/queued capture 3 ".*": registered\n/);
    const atService = () =>
      Object.values(svc.store.state.captures).filter((c) => names.some((n) => JSON.stringify(c.request).includes(n)));
    expect(atService().length).toBeGreaterThanOrEqual(3);
    const status = await cli(dataDir, ['--json', 'status']);
    expect(status.stdout).not.toMatch(/registration_unknown/);

    // Room again.
    rmSync(join(disk, 'filler'));
    const drained = await cli(dataDir, ['drain']);
    expect(drained.code, drained.stdout + drained.stderr).toBe(0);
    expect(drained.stdout + drained.stderr).not.toMatch(
      /registration unknown|registration_unknown|may have been registered/i,
    );

    // Each recording registered exactly once, every file stored.
    const captures = atService();
    expect(captures).toHaveLength(20);
    for (const n of names) expect(captures.filter((c) => JSON.stringify(c.request).includes(n))).toHaveLength(1);
    const stored = Object.values(svc.store.state.uploads).filter(
      (u) => names.includes(u.fileName) && u.status === 'completed',
    );
    expect(stored).toHaveLength(40);
    const after = await cli(dataDir, ['--json', 'status']);
    expect(after.code).toBe(0);
    expect(after.stdout).not.toMatch(/registration_unknown/);
  }, 180_000);
});
