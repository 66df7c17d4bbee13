import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { FaultRuleInput } from '../../../e2e/service/testing.js';
import { writeFakeCard } from '../../card/fake-card.js';
import { offloadCard } from '../../offload/offload.js';
import { oldPartMd5s } from '../../testing/old-rows.js';
import type { Uploader } from '../../service/uploader.js';
import { MiB, useServiceKit } from '../../testing/kit.js';

// The part MD5s an earlier offload computed from the card's bytes and kept in the queue are the
// upload's (main/offload/part-md5.ts); the copy's bytes are sent, never hashed again nor read again
// to rebuild a lost part's ETag.
// Every MD5 the uploader computes is counted here, by the bytes fed to it: the part sender's
// four-lane MD5 (main/hash/local-md5.ts PartMd5) and OpenSSL's anywhere else; and every slot of the MD5
// kernel's memory the part sender takes (a part that is not hashed must take none).
const md5Bytes = vi.hoisted(() => ({ n: 0, slots: 0 }));
vi.mock('../../hash/local-md5.js', async (importOriginal) =>
  (await import('../../testing/counted-md5.js')).countedLocalMd5(await importOriginal(), md5Bytes),
);
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  const createHash = ((algorithm: string, options?: object) => {
    const h = crypto.createHash(algorithm, options);
    // The local service runs in this process too: storage's own MD5 of what it receives is not the
    // uploader's. PartMd5's own OpenSSL fallback is counted by PartMd5.update already.
    const stack = new Error().stack!;
    if (algorithm !== 'md5' || stack.includes('/e2e/service/') || stack.includes('/hash/local-md5.')) return h;
    const update = h.update.bind(h);
    h.update = ((data: string | NodeJS.ArrayBufferView, encoding?: BufferEncoding) => {
      md5Bytes.n += typeof data === 'string' ? Buffer.byteLength(data, encoding) : data.byteLength;
      return typeof data === 'string' && encoding ? update(data, encoding) : update(data);
    }) as typeof h.update;
    return h;
  }) as typeof crypto.createHash;
  return { ...crypto, createHash, default: { ...crypto, createHash } };
});

const sha256 = async (b: Uint8Array) =>
  (await vi.importActual<typeof import('node:crypto')>('node:crypto')).createHash('sha256').update(b).digest('hex');

/** Uploaders with short per-request retries and the engine's own timings. */
const kit = useServiceKit('part-md5-test', {}, { timings: 'engine' });
const uploader = (name: string): Uploader => kit.uploader(name);
const fault = (rule: FaultRuleInput) => kit.fault(rule);

/** The part MD5s of a file (16 bytes each, part order, §4.6), as an earlier offload kept them; by the real node:crypto, not counted. */
const partMd5s = async (path: string, partSize: number) => {
  const crypto = await vi.importActual<typeof import('node:crypto')>('node:crypto');
  const bytes = readFileSync(path);
  const parts = Math.max(1, Math.ceil(bytes.length / partSize));
  return Buffer.concat(
    Array.from({ length: parts }, (_, i) =>
      crypto
        .createHash('md5')
        .update(bytes.subarray(i * partSize, (i + 1) * partSize))
        .digest(),
    ),
  );
};
/** The service's part size (capture-upload-interface.md §4.4's sample, what the local service gives). */
const partSize = 5 * MiB;

/** What storage holds for a completed file, as a SHA-256. */
const storedSha256 = async (uploadId: string): Promise<string> => (await kit.storedUpload(uploadId)).sha256;

describe('part MD5s an earlier offload kept', () => {
  it("an imported copy uploads without a byte hashed again, nor read again to rebuild lost ETags; the objects are the card's bytes", async () => {
    const u = uploader('imported');
    // 12 MiB + 7 bytes a lens: three 5 MiB parts, the last short.
    const card = writeFakeCard(join(kit.work, 'CARD'), { recordings: 1, bytes: 12 * MiB + 7 });
    const r = await offloadCard(card.root, { library: join(kit.work, 'library') });
    expect(r.verified).toBe(true);
    for (const f of r.files)
      oldPartMd5s(u.queue.db, { path: f.copy, ...f.copyFacts! }, partSize, await partMd5s(f.copy, partSize));

    const added = await u.add(
      r.files.map((f) => f.copy),
      { structure: kit.svc.info.structures[0]!, type: 'interior' },
    );
    expect(added.refused).toEqual([]);
    // Storage keeps part 2 of each file but its answer never comes: the ETag to report is its MD5.
    await fault({
      target: 'storage',
      operation: 'UploadPart',
      partNumber: 2,
      action: { type: 'dropResponse' },
      times: 2,
    });
    // And the service refuses the report once, so each file stops with every part in storage.
    await fault({ target: 'gateway', operation: 'complete-batch', action: { type: 'status', status: 422 }, times: 2 });
    md5Bytes.n = 0;
    md5Bytes.slots = 0;
    const first = await u.engine.drain();
    expect(first.failed).toHaveLength(2);
    expect(await kit.fired()).toEqual([2, 2]);
    // A crash inside the ledger's window: the queue lost every ETag storage holds. Rebuilding them
    // is what read each file again to hash it.
    for (const f of first.failed) u.queue.db.prepare('UPDATE parts SET etag = NULL WHERE file_id = ?').run(f.id);
    u.engine.retryAll();
    const summary = await u.engine.drain();
    expect(summary.failed).toEqual([]);
    expect(summary.completed).toHaveLength(2);
    expect(md5Bytes.n).toBe(0);
    // Its parts were read into ordinary buffers: the MD5 kernel's slots stay with parts that hash.
    expect(md5Bytes.slots).toBe(0);
    for (const f of summary.completed) {
      const source = r.files.find((x) => x.copy === f.path)!.source;
      expect(await storedSha256(f.uploadId!)).toBe(await sha256(readFileSync(source)));
    }
  });

  it('a file with no part MD5s kept (not imported, or copied since) is hashed as it is sent, and arrives the same', async () => {
    const u = uploader('plain');
    const card = writeFakeCard(join(kit.work, 'CARD2'), { recordings: 1, bytes: 12 * MiB + 7 });
    const r = await offloadCard(card.root, { library: join(kit.work, 'library2') });
    // The first copy's MD5s are kept, then the copy is replaced by another file of the same bytes
    // and times: its identity (inode, status-change time) is not the one they were computed for.
    for (const f of r.files)
      oldPartMd5s(u.queue.db, { path: f.copy, ...f.copyFacts! }, partSize, await partMd5s(f.copy, partSize));
    const replaced = r.files[0]!.copy;
    copyFileSync(replaced, `${replaced}.tmp`);
    rmSync(replaced);
    copyFileSync(`${replaced}.tmp`, replaced);
    rmSync(`${replaced}.tmp`);
    const { utimesSync } = await import('node:fs');
    utimesSync(replaced, r.files[0]!.mtimeMs / 1000, r.files[0]!.mtimeMs / 1000);

    await u.add(
      r.files.map((f) => f.copy),
      { structure: kit.svc.info.structures[0]!, type: 'interior' },
    );
    md5Bytes.n = 0;
    const summary = await u.engine.drain();
    expect(summary.completed).toHaveLength(2);
    // Only the replaced file was hashed, every byte of it once.
    expect(md5Bytes.n).toBe(r.files[0]!.size);
    for (const f of summary.completed) {
      const source = r.files.find((x) => x.copy === f.path)!.source;
      expect(await storedSha256(f.uploadId!)).toBe(await sha256(readFileSync(source)));
    }
  });
});
