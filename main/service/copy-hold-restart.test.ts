import { Database } from '../testing/queue-backdoors.js';
import { dropImportLocks } from '../testing/offload-child.js';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { writeFakeCard } from '../card/fake-card.js';
import type { CardImportOptions } from '../offload/card-import.js';
import { useTestService } from '../testing/kit.js';
import { startCardCore } from '../testing/card-core.js';

// After a restart: a recording placed once the app is started again, from a card whose
// copies verified before the stop, is queued at its copy (the queue's offload record), not at the
// card, so the card can be reused. The harness is copy-hold.test.ts's, cut down.
const t = useTestService('copy-hold-restart');

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A core on its own data folder, mount folder and library (main/testing/card-core.ts). */
const core = (name: string, afterWrite?: CardImportOptions['afterWrite'], map?: Map<string, unknown>) =>
  startCardCore(t, name, afterWrite, map);

/** The queue's files as stored (read-only, beside the app's own connection). */
function queuedFiles(queueFile: string) {
  const db = new Database(queueFile, { readonly: true });
  try {
    return db
      .prepare('SELECT path, state, awaiting_copy AS held, upload_id AS uploadId FROM files ORDER BY id')
      .all() as { path: string; state: string; held: number; uploadId: string | null }[];
  } finally {
    db.close();
  }
}

/** The copies the queue's offload record holds as verified, sorted. */
function recordedCopies(queueFile: string): string[] {
  const db = new Database(queueFile, { readonly: true });
  try {
    return db
      .prepare('SELECT copy_path FROM offload_files WHERE verified = 1 ORDER BY copy_path')
      .pluck()
      .all() as string[];
  } finally {
    db.close();
  }
}

/** The bytes storage holds for the upload `uploadId`. */
const storedBytes = async (uploadId: string): Promise<Buffer> => (await t.storedUpload(uploadId)).bytes;

describe('a recording placed after a restart, from a card imported before it', () => {
  it("is queued at the copy that verified before the stop and uploads from it, byte-identical, with the card file gone; the stopped copy's .partial is removed", async () => {
    // Recording 2's second lens never gets past its write: the app stops mid-import.
    const never = new Promise<void>(() => undefined);
    let partial = '';
    const first = await core('later', async (p, dest) => {
      if (!dest.includes('_10_002')) return;
      partial = p;
      await never;
    });
    const aside = join(first.mounts, '..', 'X4-aside');
    writeFakeCard(aside, { recordings: 2, bytes: 6 * 1024 * 1024 + 4321 });
    const root = join(first.mounts, 'X4');
    renameSync(aside, root);
    await vi.waitFor(() => expect(first.c.cards.list().cards.map((x) => x.root)).toEqual([root]), { timeout: 10_000 });
    first.c.cards.startImport(root);
    const destination = await vi.waitFor(
      () => first.c.cards.list().imports[0]!.destination ?? Promise.reject(new Error('not yet')),
      { timeout: 10_000 },
    );
    const copyOf = (p: string) => join(destination, p.slice(root.length));
    // Recording 1 (both lenses) verified; recording 2's first lens too, its second is half-written.
    const inspected = await first.h['capture:files.inspect']([root]);
    const [rec1, rec2] = inspected.captures
      .map((x) => x.files.map((f) => f.path).sort())
      .sort((a, b) => a[0]!.localeCompare(b[0]!));
    await vi.waitFor(
      () =>
        expect([...rec1!, rec2![0]!].map((p) => existsSync(copyOf(p))).concat(existsSync(partial))).toEqual([
          true,
          true,
          true,
          true,
        ]),
      { timeout: 20_000 },
    );
    expect(partial.startsWith(join(destination, 'DCIM', 'Camera01', '.'))).toBe(true);
    // A copy is renamed into place a moment before its row is committed: the stop comes once the
    // three are recorded (a stop between the two leaves that one copy unrecorded: README, import CARD).
    await vi.waitFor(() => expect(recordedCopies(first.queueFile)).toEqual([...rec1!, rec2![0]!].map(copyOf).sort()), {
      timeout: 20_000,
    });
    await first.c.close();
    t.release(first.c);
    // A restart ends the process and the system drops its offload's lock; here the stuck import
    // lives on in this process, so its lock is dropped as that end would.
    dropImportLocks(first.c.cards);

    const again = await core('later', undefined, first.map);
    // The interrupted offload's half-written copy went when the queue opened; its verified copies stay.
    expect(existsSync(partial)).toBe(false);
    expect([...rec1!, rec2![0]!].map((p) => existsSync(copyOf(p)))).toEqual([true, true, true]);
    const bytes = new Map([...rec1!, ...rec2!].map((p) => [p, readFileSync(p)]));
    const structure = again.c.settings.view().structures[0]!;
    const placed = await again.h['capture:captures.register'](
      [rec1!, rec2!].map((paths, i) => ({
        paths,
        structure: structure.id,
        type: 'interior' as const,
        capturedAt: `2026-11-24T08:0${i}:00Z`,
      })),
    );
    expect(placed.queued).toHaveLength(2);
    // The card is reused: whatever has a verified copy is gone from it.
    for (const p of [...rec1!, rec2![0]!]) rmSync(p);

    const queued = queuedFiles(again.queueFile);
    expect(queued.map((f) => [f.path, f.held])).toEqual([
      [copyOf(rec1![0]!), 0],
      [copyOf(rec1![1]!), 0],
      [copyOf(rec2![0]!), 0],
      [rec2![1]!, 0],
    ]);
    await vi.waitFor(
      () => expect(queuedFiles(again.queueFile).map((f) => f.state)).toEqual(Array(4).fill('completed')),
      { timeout: 30_000 },
    );
    const done = queuedFiles(again.queueFile);
    for (const [i, p] of [...rec1!, ...rec2!].entries())
      expect(sha(await storedBytes(done[i]!.uploadId!))).toBe(sha(bytes.get(p)!));
  });
});
