import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFakeCard } from '../main/card/fake-card.js';
import { useCliKit, waitFor } from '../main/testing/kit.js';
import { addWithKit } from '../main/testing/e2e-cli.js';
import { gatewayDelayed } from '../main/testing/e2e-faults.js';

// A registration the platform accepted is never lost to a full disk (main/queue/answer-reserve.ts,
// docs/decisions/0008-answer-reserve.md): the queue's folder is on a small tmpfs (the tests run
// as root, as e2e/cli-exit.test.ts's full-disk test does) that fills while the third add-capture
// answer is on its way. The CLI runs as a child against the local service.
const kit = useCliKit(
  'answer-reserve',
  {},
  {
    before: (k) => {
      mkdirSync(join(k.work, 'disk'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', join(k.work, 'disk')]);
    },
    after: (k) => {
      execFileSync('umount', [join(k.work, 'disk')]);
    },
  },
);

const cli = (dataDir: string, args: string[]) => kit.run(dataDir, args);
const faultsSeen = async () => (await kit.faults()).map((r) => r.seen);

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
    const disk = join(kit.work, 'disk');
    const card = writeFakeCard(join(kit.work, 'X4_SD'), { recordings: 20 });
    const names = card.recordings.map((p) => basename(p));
    const dataDir = join(disk, 'queue');
    // The third add-capture is held 3 s at the service: the disk fills while its answer is on its way.
    await kit.fault(gatewayDelayed('add-capture', 3000, { skip: 2, times: 1 }));
    const adding = addWithKit(kit, dataDir, [card.root]);
    // Seen counts the two let through; the other lane goes on meanwhile, so more may follow.
    await waitFor(async () => ((await faultsSeen())[0] ?? 0) >= 3);
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
      Object.values(kit.svc.store.state.captures).filter((c) =>
        names.some((n) => JSON.stringify(c.request).includes(n)),
      );
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
    const stored = Object.values(kit.svc.store.state.uploads).filter(
      (u) => names.includes(u.fileName) && u.status === 'completed',
    );
    expect(stored).toHaveLength(40);
    const after = await cli(dataDir, ['--json', 'status']);
    expect(after.code).toBe(0);
    expect(after.stdout).not.toMatch(/registration_unknown/);
  }, 180_000);
});
