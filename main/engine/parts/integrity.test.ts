import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, linkSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Uploader } from '../../service/uploader.js';
import { chmodAndBack, MiB, overwriteAt, sha256, useServiceKit } from '../../testing/kit.js';

// Nothing uploaded wrong. A file changed in place while it uploads (its mtime set back,
// as `touch -r` does) must never be finalized as a mix; one recording is queued once whatever
// the path it is reached by.
const kit = useServiceKit('integrity-test', {}, { timings: 'engine' });
const svc = () => kit.svc;
/** An uploader on its own queue folder, its own bandwidth cap (bytes/s) when given; the engine's own timings. */
const uploader = (name: string, bandwidthBytesPerSecond: number | null = null): Uploader =>
  kit.uploader(name, { bandwidthBytesPerSecond });
const structure = () => kit.structure();
/**
 * A 12 MiB recording `walk-<name>.mp4` of random bytes in the work folder, queued on a new uploader
 * `name` that sends at most `bandwidthBytesPerSecond` (bytes/s).
 */
async function queuedWalk(name: string, bandwidthBytesPerSecond: number): Promise<{ path: string; u: Uploader }> {
  const path = join(kit.work, `walk-${name}.mp4`);
  writeFileSync(path, randomBytes(12 * MiB));
  const u = uploader(name, bandwidthBytesPerSecond);
  await u.add([path], { structure: structure(), type: 'interior' });
  return { path, u };
}

describe('a file changed while it uploads', () => {
  it('changed in place in its first and last MiB with its mtime put back, at 2 MiB/s: fails by name, never finalized; added again, the new bytes arrive', async () => {
    const path = join(kit.work, 'walk-changed.mp4');
    writeFileSync(path, randomBytes(14 * MiB));
    const stamp = join(kit.work, 'walk-changed.stamp');
    writeFileSync(stamp, '');
    execFileSync('touch', ['-r', path, stamp]); // keep its exact times, as a person would with touch -r
    const u = uploader('changed', 2 * MiB);
    await u.add([path], { structure: structure(), type: 'interior' });
    const [file] = u.queue.files(['pending']);
    const draining = u.engine.drain();
    await vi.waitFor(() => expect(u.queue.parts(file!.id).some((p) => p.etag)).toBe(true), { timeout: 10_000 });
    // dd … conv=notrunc, then touch -r: same size, same mtime, other bytes.
    // Within the first and last MiB: what the fingerprint covers.
    overwriteAt(path, MiB / 2, randomBytes(64 * 1024));
    overwriteAt(path, 13 * MiB + MiB / 2, randomBytes(64 * 1024));
    execFileSync('touch', ['-r', stamp, path]);
    expect(statSync(path).mtimeMs).toBe(statSync(stamp).mtimeMs);
    const summary = await draining;

    expect(summary.failed.map((f) => f.id)).toEqual([file!.id]);
    expect(summary.failed[0]!.error).toMatch(
      /walk-changed\.mp4 changed while uploading \(its first or last MiB differs, though its size and modification time were kept\).*Adding it again, with the other files of its recording, registers a new capture for the whole recording/,
    );
    // Storage never put the object together: the multipart upload was not completed.
    expect(svc().store.state.uploads[file!.uploadId!]!.completedAt).toBeUndefined();

    await svc().admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    u.engine.setBandwidth(null);
    const again = await u.add([path], { structure: structure(), type: 'interior' });
    expect(again.refused).toEqual([]);
    const done = await u.engine.drain();
    expect(done.completed).toHaveLength(1);
    // The old file is shown as replaced by the new capture, not left failed beside it,
    // so the drain has nothing left that needs a person.
    expect(u.queue.file(file!.id)).toMatchObject({
      state: 'cancelled',
      replacedBy: again.queued[0],
      error: expect.stringMatching(/^Replaced by capture \d+/),
    });
    expect(done.failed).toEqual([]);
    expect(done.cancelled).toEqual([]);
    expect(u.queue.activity.list().some((a) => a.kind === 'replaced' && a.fileId === file!.id)).toBe(true);
    expect((await kit.storedUpload(done.completed[0]!.uploadId!)).sha256).toBe(sha256(readFileSync(path)));
  });
});

describe('a lens of a dual-lens pair changed while it uploads', () => {
  it('the lens alone is refused naming its pair; the pair added again is registered again whole, the old capture shown replaced, and both lenses arrive', async () => {
    const lens00 = join(kit.work, 'VID_20261125_080000_00_001.insv');
    const lens10 = join(kit.work, 'VID_20261125_080000_10_001.insv');
    writeFileSync(lens00, randomBytes(14 * MiB));
    writeFileSync(lens10, randomBytes(3 * MiB));
    const u = uploader('dual-changed', 2 * MiB);
    const first = await u.add([lens00, lens10], { structure: structure(), type: 'interior' });
    expect(first.queued).toHaveLength(1);
    const [old00, old10] = [lens00, lens10].map((p) => u.queue.filesOf(first.queued[0]!).find((f) => f.path === p)!);
    const draining = u.engine.drain();
    await vi.waitFor(() => expect(u.queue.parts(old00!.id).some((p) => p.etag)).toBe(true), { timeout: 10_000 });
    // Lens 00 is written over in place (another size): it fails by name; lens 10 did not change.
    writeFileSync(lens00, randomBytes(14 * MiB + 4096));
    const summary = await draining;
    expect(summary.failed.map((f) => f.id)).toEqual([old00!.id]);
    expect(summary.failed[0]!.error).toMatch(
      /Adding it again, with the other files of its recording, registers a new capture for the whole recording/,
    );

    await svc().admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    u.engine.setBandwidth(null);
    const captures = () => Object.keys(svc().store.state.captures).length;
    const registered = captures();
    // The changed lens alone would split the recording into two captures: refused, naming its pair.
    const alone = await u.add([lens00], { structure: structure(), type: 'interior' });
    expect(alone.queued).toEqual([]);
    expect(alone.refused).toEqual([
      { path: lens00, reason: expect.stringContaining(`is registered again whole; add it together with ${lens10}`) },
    ]);
    expect(captures()).toBe(registered);

    // Both lenses again: one new capture of the whole recording, not "Already in the queue".
    const again = await u.add([lens00, lens10], { structure: structure(), type: 'interior' });
    expect(again.refused).toEqual([]);
    expect(again.queued).toHaveLength(1);
    expect(captures()).toBe(registered + 1);
    expect(
      u.queue
        .filesOf(again.queued[0]!)
        .map((f) => f.path)
        .sort(),
    ).toEqual([lens00, lens10]);
    // The old capture is shown as replaced, each of its files; lens 10 kept what it was if it completed.
    for (const f of u.queue.filesOf(first.queued[0]!)) {
      expect(f.replacedBy).toBe(again.queued[0]);
      expect(['cancelled', 'completed']).toContain(f.state);
    }
    expect(u.queue.file(old00!.id)).toMatchObject({
      state: 'cancelled',
      error: expect.stringMatching(/^Replaced by capture \d+: the recording changed on disk/),
    });
    expect(
      u.queue.activity
        .list()
        .filter((a) => a.kind === 'replaced')
        .map((a) => a.fileId)
        .sort(),
    ).toEqual([old00!.id, old10!.id].sort());

    const done = await u.engine.drain();
    expect(done.failed).toEqual([]);
    expect(done.completed.map((f) => f.path).sort()).toEqual([lens00, lens10]);
    for (const f of done.completed) {
      expect((await kit.storedUpload(f.uploadId!)).sha256).toBe(sha256(readFileSync(f.path)));
    }
  });
});

describe('a file whose bytes did not change', () => {
  it('a chmod and back and a hard link made while it uploads: it completes, byte-identical', async () => {
    const { path, u } = await queuedWalk('chmod', 2 * MiB);
    const [file] = u.queue.files(['pending']);
    const draining = u.engine.drain();
    await vi.waitFor(() => expect(u.queue.parts(file!.id).some((p) => p.etag)).toBe(true), { timeout: 10_000 });
    const ctimeBefore = statSync(path, { bigint: true }).ctimeNs;
    chmodAndBack(path);
    linkSync(path, join(kit.work, 'walk-chmod-link.mp4'));
    expect(statSync(path, { bigint: true }).ctimeNs).not.toBe(ctimeBefore);
    const summary = await draining;
    expect(summary.failed).toEqual([]);
    expect(summary.completed.map((f) => f.id)).toEqual([file!.id]);
    expect((await kit.storedUpload(summary.completed[0]!.uploadId!)).sha256).toBe(sha256(readFileSync(path)));
  });
});

describe('one recording, one capture', () => {
  it('the same recording copied to another card path is refused, naming the capture it is already in', async () => {
    const a = mkdtempSync(join(kit.work, 'mount-a-'));
    const b = mkdtempSync(join(kit.work, 'mount-b-'));
    const name = 'VID_20261123_141414_00_001.insv';
    writeFileSync(join(a, name), randomBytes(2 * MiB + 3));
    copyFileSync(join(a, name), join(b, name));
    const u = uploader('same-recording');
    const first = await u.add([a], { structure: structure(), type: 'interior' });
    expect(first.queued).toHaveLength(1);
    // The card under another mount point (another inode, same content), then the first path spelled otherwise.
    for (const again of [[b], [join(a, '.', name)]]) {
      const second = await u.add(again, { structure: structure(), type: 'interior' });
      expect(second.queued).toEqual([]);
      expect(second.refused).toEqual([
        {
          path: expect.stringMatching(/VID_20261123_141414_00_001\.insv$/),
          reason: expect.stringMatching(
            /^Already in the queue as capture 1 \(2026-11-23 14:14:14 · segment 001\); it is not added twice\.$/,
          ),
        },
      ]);
    }
  });
});

describe('the queue database fails under a running drain', () => {
  it('a full disk while recording parts: one message naming queue.db, the drain stops, nothing queued is lost', async () => {
    const { u } = await queuedWalk('full-disk', 4 * MiB);
    const events: string[] = [];
    u.engine.on((e) => e.type === 'fatal' && events.push(e.message));
    // SQLite's answer when the disk is full, from the next write of stored parts on.
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const record = vi.spyOn(u.queue, 'recordParts').mockImplementation(() => {
      throw full;
    });
    const summary = await u.engine.drain();
    expect(summary.fatal).toMatch(
      /^The disk holding the upload queue's folder .*full-disk is full \(\d+ MB free\): free at least \d+ MB there, then run again; nothing queued was lost\.$/,
    );
    expect(events).toEqual([summary.fatal]);
    expect(u.queue.captures()).toHaveLength(1);
    // Space again: the next drain finishes the file without sending the stored parts twice.
    record.mockRestore();
    await u.close();
    const again = uploader('full-disk');
    const replacedBefore = svc().storage.stats.partsReplaced;
    expect((await again.engine.drain()).completed).toHaveLength(1);
    expect(svc().storage.stats.partsReplaced).toBe(replacedBefore);
  });

  it('queue.db deleted during a drain is noticed: the drain stops and says so', async () => {
    const { u } = await queuedWalk('deleted-queue', 2 * MiB);
    const draining = u.engine.drain();
    await new Promise((r) => setTimeout(r, 500));
    for (const suffix of ['', '-wal', '-shm'])
      rmSync(join(kit.work, 'deleted-queue', `queue.db${suffix}`), { force: true });
    const t0 = Date.now();
    const summary = await draining;
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(summary.fatal).toMatch(/queue\.db cannot be written \(DELETED\): it was deleted or replaced while in use/);
  });
});
