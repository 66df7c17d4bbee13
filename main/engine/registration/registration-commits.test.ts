import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useServiceKit } from '../../testing/kit.js';
import { REGISTRATION_LANES } from './registrar.js';

// The queue commits with synchronous=FULL, so each commit waits for the disk: on a loaded
// machine about 3 ms, which at 5,000 captures is what `add` of a card takes. These tests count
// the commits themselves, in the WAL, so they hold on any machine (docs/queue-commits.md).

const kit = useServiceKit('registration-commits');

/**
 * The transactions committed in a WAL file so far: frames whose salts match the header's (the
 * current log) and whose "database size after commit" field is set (a commit's last frame), per
 * https://www.sqlite.org/fileformat.html §4.1. Valid while nothing checkpoints the log.
 */
function walCommits(walFile: string): number {
  const wal = readFileSync(walFile);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  return commits;
}

/** `n` single-lens recordings of 1 KiB under the kit's folder, one capture each. */
function recordings(name: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const path = join(kit.work, `${name}-${i + 1}.mp4`);
    writeFileSync(path, randomBytes(1024));
    return path;
  });
}

describe('commits per registration', () => {
  it('queues a card in one commit, and registers each capture with two (claim with its sent mark, answer), not one per step', async () => {
    const n = 30;
    const u = kit.uploader('commits');
    // No checkpoint may move the log back to its start while the commits are counted.
    u.queue.db.pragma('wal_autocheckpoint = 0');
    const wal = `${u.queue.db.name}-wal`;
    const paths = recordings('commits', n);

    const beforeIntake = walCommits(wal);
    const { queued } = await u.enqueue(paths, { structure: kit.structure(), type: 'interior' });
    expect(queued).toHaveLength(n);
    const intake = walCommits(wal) - beforeIntake;

    const beforeRegistration = walCommits(wal);
    await u.engine.registerQueued();
    const registration = walCommits(wal) - beforeRegistration;

    // Every capture is registered once, at the service and in the queue, with its files pending.
    const atService = Object.values(kit.svc.store.state.captures).filter((c) =>
      JSON.stringify(c.request).includes('commits-'),
    );
    expect(atService).toHaveLength(n);
    const rows = u.queue.db.prepare('SELECT state, sent_at FROM captures').all() as {
      state: string;
      sent_at: string | null;
    }[];
    expect(rows.map((r) => r.state)).toEqual(Array(n).fill('registered'));
    expect(rows.every((r) => r.sent_at !== null)).toBe(true);
    expect(u.queue.db.prepare("SELECT COUNT(*) AS k FROM files WHERE state = 'pending'").get()).toEqual({ k: n });

    // The card: one commit, not two per capture (its rows, then the replaced-file check).
    expect(intake).toBe(1);
    // The first capture of each lane is claimed before the sign-in and waits for it between its
    // claim and its sent mark (three commits); every later one is claimed with its sent mark (two).
    expect(registration).toBeLessThanOrEqual(2 * n + REGISTRATION_LANES);
  });

  it('a capture claimed before signing in is marked sent in a commit of its own, after the sign-in and before its body leaves', async () => {
    const u = kit.uploader('first');
    await u.enqueue(recordings('first', 1), { structure: kit.structure(), type: 'interior' });
    expect(u.gateway.signedIn).toBe(false);
    // Seen by the service as the body arrives: the queue already holds the sent mark.
    const marks: (string | null)[] = [];
    const send = u.gateway.addCaptures.bind(u.gateway);
    u.gateway.addCaptures = (captures, signal) => {
      marks.push((u.queue.db.prepare('SELECT sent_at FROM captures').get() as { sent_at: string | null }).sent_at);
      return send(captures, signal);
    };
    await u.engine.registerQueued();
    expect(u.gateway.signedIn).toBe(true);
    expect(marks).toHaveLength(1);
    expect(marks[0]).not.toBeNull();
    expect(u.queue.captures().map((c) => c.state)).toEqual(['registered']);
  });
});
