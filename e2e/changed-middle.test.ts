import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, statSync, utimesSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MiB, sha256, useCliKit } from '../main/testing/kit.js';
import { changeMetadataOnly } from '../main/testing/e2e-card.js';

// A file changed in its middle while it uploads, its modification time put back: storage must
// never put together a mix of old and new bytes, and `drain` must say so by its exit code and
// message. A chmod and back or a hard link change no byte and must not stop the upload
// (main/engine/parts/stored-bytes.ts). The CLI runs as a child against the local service, storage
// capped at 2 MiB/s so the change lands mid-upload. Only files this test made are modified.

const kit = useCliKit('changed-middle');
afterEach(async () => {
  await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
});

/** A 40 MiB recording in its own data folder, queued by the CLI. */
const queued = (name: string) => kit.queued(name, 40 * MiB);

const objectsOf = () => Object.values(kit.svc.store.state.uploads);

describe('drain, a 40 MiB file at 2 MiB/s', () => {
  it('MiB 1 and MiB 33 overwritten after 6 s, the modification time put back: no object is made, drain exits 1 naming the change', async () => {
    const { path, dataDir } = await queued('overwritten');
    const before = statSync(path);
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 2 * MiB });
    const draining = kit.run(dataDir, ['drain']);
    await new Promise((r) => setTimeout(r, 6000));
    // dd … conv=notrunc on this test's own file, then the times set back as `touch -r` would.
    const fd = openSync(path, 'r+');
    writeSync(fd, randomBytes(MiB), 0, MiB, 1 * MiB);
    writeSync(fd, randomBytes(MiB), 0, MiB, 33 * MiB);
    closeSync(fd);
    // In seconds as a number: a Date would round to the ms. The queue keeps whole ms.
    utimesSync(path, before.atimeMs / 1000, before.mtimeMs / 1000);
    expect(Math.trunc(statSync(path).mtimeMs)).toBe(Math.trunc(before.mtimeMs));
    expect(statSync(path).size).toBe(before.size);
    const drained = await draining;

    expect(drained.code, drained.stdout + drained.stderr).toBe(1);
    expect(drained.stdout + drained.stderr).toMatch(
      /overwritten\.mp4 changed while uploading \(part \d+, bytes \d+–\d+, differs from the bytes storage holds, though its size and modification time were kept\)/,
    );
    // Storage never put the object together: the multipart upload was not completed.
    const uploads = objectsOf().filter((u) => u.key.includes('overwritten'));
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.completedAt).toBeUndefined();
  }, 120_000);

  it('a chmod and back and a hard link made after 6 s: it completes, the stored object byte-identical to the file', async () => {
    const { path, dataDir } = await queued('relinked');
    await kit.svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 2 * MiB });
    const draining = kit.run(dataDir, ['drain']);
    await new Promise((r) => setTimeout(r, 6000));
    changeMetadataOnly(path, join(kit.work, 'relinked-link.mp4'));
    const drained = await draining;

    expect(drained.code, drained.stdout + drained.stderr).toBe(0);
    const uploads = objectsOf().filter((u) => u.key.includes('relinked'));
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.completedAt).toBeDefined();
    const res = await kit.object(uploads[0]!.key);
    expect(res.sha256).toBe(sha256(readFileSync(path)));
  }, 120_000);
});
