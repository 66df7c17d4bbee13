import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileChangedError } from '../../api/errors.js';
import { contentFingerprint, fileFacts } from '../../intake/file-identity.js';
import type { QueuedFile, QueuedPart } from '../../queue/queue.js';
import type { EngineContext } from '../context.js';
import { StoredBytesCheck } from './stored-bytes.js';
import { chmodAndBack, MiB, overwriteAt, useWorkDir } from '../../testing/kit.js';

// The parts storage holds are compared with the file's bytes whenever its status-change time,
// inode or device moved (docs/changed-files.md).
const PART = 2 * MiB;
const work = useWorkDir('stored-bytes');

const md5 = (b: Buffer) => `"${createHash('md5').update(b).digest('hex')}"`;

/** A 7 MiB file queued as 4 parts of 2 MiB, the first `stored` of them in storage with their MD5 ETags (or `etag(n)`). */
async function setUp(name: string, stored: number, etag?: (n: number, bytes: Buffer) => string) {
  const path = join(work, name);
  const bytes = randomBytes(7 * MiB);
  writeFileSync(path, bytes);
  const facts = await fileFacts(path);
  const f = {
    id: 1,
    path,
    fileName: name,
    ...facts,
    fingerprint: await contentFingerprint(path, facts.size),
    partSize: PART,
  } as unknown as QueuedFile;
  const parts: QueuedPart[] = Array.from({ length: 4 }, (_, i) => {
    const slice = bytes.subarray(i * PART, Math.min(bytes.length, (i + 1) * PART));
    return {
      partNumber: i + 1,
      size: slice.length,
      etag: i < stored ? (etag ?? ((_n, b) => md5(b)))(i + 1, slice) : null,
      unansweredAt: null,
    };
  });
  const ctx = { queue: { parts: () => parts }, etagsAreMd5: undefined } as unknown as EngineContext;
  return { path, f, ctx, parts, check: (known?: string[]) => new StoredBytesCheck(ctx, f, () => known) };
}

/** Overwrites `length` bytes at `offset` and puts the times back, as `dd conv=notrunc` then `touch -r` would. */
function overwrite(path: string, offset: number, length: number): void {
  const before = statSync(path);
  overwriteAt(path, offset, randomBytes(length));
  utimesSync(path, before.atimeMs / 1000, before.mtimeMs / 1000);
}

describe('StoredBytesCheck', () => {
  it('a chmod and back: the stored parts are read again, match, and the upload goes on', async () => {
    const { path, check } = await setUp('chmod.insv', 2);
    await new Promise((r) => setTimeout(r, 20));
    chmodAndBack(path);
    await expect(check().assert()).resolves.toBeUndefined();
  });

  it('the card mounted again under another device number, same bytes: goes on', async () => {
    const { f, check } = await setUp('remount.insv', 3);
    (f as { dev?: string }).dev = String(Number(f.dev) + 7);
    await expect(check().assert()).resolves.toBeUndefined();
  });

  it('a stored part overwritten in the middle, the mtime put back: FileChangedError naming the part and its bytes', async () => {
    const { path, check } = await setUp('middle.insv', 2);
    overwrite(path, 3 * MiB, 4096);
    const err = await check()
      .assert()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileChangedError);
    expect((err as Error).message).toMatch(
      /middle\.insv changed while uploading \(part 2, bytes 2097152–4194303, differs from the bytes storage holds, though its size and modification time were kept\)/,
    );
  });

  it('a part stored after the others were proven is compared by the final check before complete-batch', async () => {
    const { path, check, parts } = await setUp('late.insv', 1);
    chmodSync(path, 0o600);
    const c = check();
    await expect(c.assert()).resolves.toBeUndefined();
    // Part 2 read while the file was being written, stored after the proof: its MD5 is not the file's now.
    parts[1]!.etag = md5(randomBytes(PART));
    await expect(c.assert()).resolves.toBeUndefined(); // a part's own check reads nothing more under a proven key
    await expect(c.assert({ final: true })).rejects.toThrow(
      /part 2, bytes 2097152–4194303, differs from the bytes storage holds/,
    );
  });

  it('a part not yet stored overwritten: goes on (it is read, and sent, as it is now)', async () => {
    const { path, check } = await setUp('unsent.insv', 1);
    overwrite(path, 5 * MiB, 4096);
    await expect(check().assert()).resolves.toBeUndefined();
  });

  it('ETags that are not MD5s (KMS): the MD5 of the bytes sent in this run decides; a part from an earlier run cannot be compared and the file fails', async () => {
    const kms = (n: number) => `"kms-${n}"`;
    const sentNow = await setUp('kms-now.insv', 2, kms);
    chmodSync(sentNow.path, 0o600);
    const c = sentNow.check();
    const bytes = readFileSync(sentNow.path);
    c.noteSent(1, md5(bytes.subarray(0, PART)));
    c.noteSent(2, md5(bytes.subarray(PART, 2 * PART)));
    await expect(c.assert()).resolves.toBeUndefined();

    const earlier = await setUp('kms-earlier.insv', 2, kms);
    chmodSync(earlier.path, 0o600);
    await expect(earlier.check().assert()).rejects.toThrow(
      /part 1, stored by an earlier run under ETags that are not MD5 digests, cannot be compared/,
    );
  });

  it("the offload's MD5s of the card's bytes are compared when they apply", async () => {
    const { path, check, parts } = await setUp('offloaded.insv', 2, (n) => `"kms-${n}"`);
    const bytes = readFileSync(path);
    const known = parts.map((p) => md5(bytes.subarray((p.partNumber - 1) * PART, (p.partNumber - 1) * PART + p.size)));
    chmodSync(path, 0o600);
    await expect(check(known).assert()).resolves.toBeUndefined();
    overwrite(path, 100, 10);
    // The first MiB is in the fingerprint: that check speaks first.
    await expect(check(known).assert()).rejects.toThrow(/its first or last MiB differs/);
  });
});
