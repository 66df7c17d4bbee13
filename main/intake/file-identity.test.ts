import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, linkSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileChangedError } from '../api/errors.js';
import { assertUnchanged } from '../engine/parts/part-put.js';
import { contentFingerprint, fileFacts } from './file-identity.js';
import { chmodAndBack, MiB, overwriteAt, useWorkDir } from '../testing/kit.js';

// A file is "changed" only when its bytes may differ (size, mtime, the first and
// last MiB), never on inode, device number or status-change time alone.
const work = useWorkDir('file-identity');

/** A 3 MiB recording and what intake would have queued for it. */
async function queued(name: string) {
  const path = join(work, name);
  writeFileSync(path, randomBytes(3 * MiB));
  const facts = await fileFacts(path);
  return { path, expected: { ...facts, fingerprint: await contentFingerprint(path, facts.size) } };
}

/** Keeps the file's exact times in a stamp file; the returned function puts them back (`touch -r`, to the ns). */
function keepTimes(path: string): () => void {
  const stamp = `${path}.stamp`;
  writeFileSync(stamp, '');
  execFileSync('touch', ['-r', path, stamp]);
  return () => execFileSync('touch', ['-r', stamp, path]);
}

describe('assertUnchanged', () => {
  it('a chmod and back is not a change (only the status-change time moved)', async () => {
    const { path, expected } = await queued('chmod.insv');
    await new Promise((r) => setTimeout(r, 20)); // so the status-change time visibly moves
    chmodAndBack(path);
    expect((await fileFacts(path)).ctimeNs).not.toBe(expected.ctimeNs);
    await expect(assertUnchanged(path, expected)).resolves.toBeUndefined();
  });

  it('a hard link to it is not a change', async () => {
    const { path, expected } = await queued('linked.insv');
    await new Promise((r) => setTimeout(r, 20));
    linkSync(path, join(work, 'linked-again.insv'));
    expect((await fileFacts(path)).ctimeNs).not.toBe(expected.ctimeNs);
    await expect(assertUnchanged(path, expected)).resolves.toBeUndefined();
    await expect(assertUnchanged(join(work, 'linked-again.insv'), expected)).resolves.toBeUndefined();
  });

  it('the card mounted again (same bytes and mtime, another inode and device number) is not a change', async () => {
    const { path, expected } = await queued('card.insv');
    const remounted = join(work, 'card-remounted.insv');
    copyFileSync(path, remounted);
    execFileSync('touch', ['-r', path, remounted]);
    expect(statSync(remounted).ino).not.toBe(statSync(path).ino);
    // The device number a remount gives cannot be made here: the queue's is set to another one.
    await expect(
      assertUnchanged(remounted, { ...expected, dev: String(Number(expected.dev) + 7) }),
    ).resolves.toBeUndefined();
  });

  it('one byte changed in the last MiB, with size and mtime kept, is a change', async () => {
    const { path, expected } = await queued('edited.insv');
    const putTimesBack = keepTimes(path);
    overwriteAt(path, 3 * MiB - 1000, Buffer.from([0xff ^ 0x5a]));
    putTimesBack();
    expect(statSync(path).size).toBe(expected.size);
    await expect(assertUnchanged(path, expected)).rejects.toThrow(FileChangedError);
    await expect(assertUnchanged(path, expected)).rejects.toThrow(
      /edited\.insv changed while uploading \(its first or last MiB differs/,
    );
  });

  it('another size or modification time is a change', async () => {
    const { path, expected } = await queued('grown.insv');
    await expect(assertUnchanged(path, { ...expected, size: expected.size - 1 })).rejects.toThrow(
      /size 3145728 bytes, queued with 3145727/,
    );
    utimesSync(path, new Date(expected.mtimeMs + 5000), new Date(expected.mtimeMs + 5000));
    await expect(assertUnchanged(path, expected)).rejects.toThrow(FileChangedError);
  });

  it('a row queued before fingerprints were kept: the size and mtime decide alone', async () => {
    const { path, expected } = await queued('old-row.insv');
    const putTimesBack = keepTimes(path);
    overwriteAt(path, 10, Buffer.from('x'));
    putTimesBack();
    await expect(
      assertUnchanged(path, {
        size: expected.size,
        mtimeMs: expected.mtimeMs,
        dev: null,
        ino: null,
        ctimeNs: null,
        fingerprint: null,
      }),
    ).resolves.toBeUndefined();
  });
});
