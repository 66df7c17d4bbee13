import { Database } from '../testing/queue-backdoors.js';
import { dropImportLocks } from '../testing/offload-child.js';
import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { writeFakeCard } from '../card/fake-card.js';
import type { CardImportOptions } from '../offload/card-import.js';
import { RELEASED } from '../queue/copy-holds.js';
import { AppCore } from './app-core.js';
import { useTestService } from '../testing/kit.js';
import { startCardCore } from '../testing/card-core.js';

// Recordings placed while their card is imported wait for their verified copies
// (files.awaiting_copy, migration 13) and upload from them; nothing is read from the card then.
// The bytes the engine's part sender hashes are counted (main/hash/local-md5.ts PartMd5): a copy moved to
// with the part MD5s of its copy pass is sent without a byte hashed again.
const md5Bytes = vi.hoisted(() => ({ n: 0, slots: 0 }));
vi.mock('../hash/local-md5.js', async (importOriginal) =>
  (await import('../testing/counted-md5.js')).countedLocalMd5(await importOriginal(), md5Bytes),
);

const t = useTestService('copy-hold', { clearFaults: true });

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A core on its own data folder, mount folder and library (main/testing/card-core.ts). */
const core = (name: string, afterWrite?: CardImportOptions['afterWrite'], map?: Map<string, unknown>) =>
  startCardCore(t, name, afterWrite, map);

/** A card written aside and moved in whole (a volume appears at once), with each recording's bytes as written. */
async function mountCard(c: AppCore, mounts: string, name: string, recordings: number) {
  const aside = join(mounts, '..', `${name}-aside`);
  const fake = writeFakeCard(aside, { recordings, bytes: 6 * 1024 * 1024 + 4321 });
  const root = join(mounts, name);
  renameSync(aside, root);
  const bytes = new Map(fake.recordings.map((p) => [p.replace(aside, root), readFileSync(p.replace(aside, root))]));
  await vi.waitFor(() => expect(c.cards.list().cards.map((x) => x.root)).toEqual([root]), { timeout: 10_000 });
  return { root, bytes };
}

/** The queue's files as stored (read-only, beside the app's own connection). */
function queuedFiles(queueFile: string) {
  const db = new Database(queueFile, { readonly: true });
  try {
    return db
      .prepare(
        'SELECT id, capture_row AS captureRow, path, state, awaiting_copy AS held, upload_id AS uploadId, ino FROM files ORDER BY id',
      )
      .all() as {
      id: number;
      captureRow: number;
      path: string;
      state: string;
      held: number;
      uploadId: string | null;
      ino: string | null;
    }[];
  } finally {
    db.close();
  }
}

/** The bytes storage holds for the upload `uploadId`. */
const storedBytes = async (uploadId: string): Promise<Buffer> => (await t.storedUpload(uploadId)).bytes;

/** Registers every recording the card's root holds, at the card's own paths (what the registration step sends). */
async function placeAll(h: ReturnType<AppCore['handlers']>, c: AppCore, root: string) {
  const inspected = await h['capture:files.inspect']([root]);
  const structure = c.settings.view().structures[0]!;
  return h['capture:captures.register'](
    inspected.captures.map((x) => ({
      paths: x.files.map((f) => f.path),
      structure: structure.id,
      type: 'interior' as const,
      capturedAt: x.capturedAt,
    })),
  );
}

/** Every file under the library folder with its size: what an import wrote. */
function libraryFiles(library: string): string[] {
  return (readdirSync(library, { recursive: true, withFileTypes: true }) as Dirent[])
    .filter((e) => e.isFile())
    .map((e) => `${join(e.parentPath, e.name)}:${statSync(join(e.parentPath, e.name)).size}`)
    .sort();
}

describe('a card imported, uploaded and put back the next morning', () => {
  it('is known by its content: no second copy, its rows say already uploaded and cannot be placed again, and a recording added since is the only one copied', async () => {
    const { c, h, mounts, queueFile } = await core('back');
    const library = join(t.work, 'back', 'library');
    const { root } = await mountCard(c, mounts, 'X4', 2);
    c.cards.startImport(root);
    await vi.waitFor(() => expect(c.cards.list().imports[0]).toMatchObject({ phase: 'done', safeToRemove: true }), {
      timeout: 20_000,
    });
    expect((await placeAll(h, c, root)).queued).toHaveLength(2);
    await vi.waitFor(() => expect(queuedFiles(queueFile).map((f) => f.state)).toEqual(Array(4).fill('completed')), {
      timeout: 30_000,
    });
    const before = libraryFiles(library);

    // Pulled out in the evening, put back in the morning under another mount name.
    const aside = join(mounts, '..', 'X4-overnight');
    renameSync(root, aside);
    await vi.waitFor(() => expect(c.cards.list().cards).toEqual([]), { timeout: 10_000 });
    const back = join(mounts, 'X4_1');
    renameSync(aside, back);
    await vi.waitFor(() => expect(c.cards.list().cards.map((x) => x.root)).toEqual([back]), { timeout: 10_000 });
    const second = c.cards.startImport(back).id;
    await vi.waitFor(
      () => expect(c.cards.list().imports.find((i) => i.id === second)).toMatchObject({ phase: 'done' }),
      { timeout: 20_000 },
    );
    const view = c.cards.list().imports.find((i) => i.id === second)!;
    expect(view).toMatchObject({
      safeToRemove: true,
      bytesTotal: 0,
      known: { recordings: 2, known: 2, uploaded: 2, queued: 0, copied: 0 },
    });
    expect(view.files.map((f) => [f.state, f.already])).toEqual(Array(4).fill(['known', 'uploaded']));
    expect(libraryFiles(library)).toEqual(before);
    const db = new Database(queueFile, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM offloads').get()).toEqual({ n: 1 });
    db.close();
    // The registration step is told they are queued: not offered for placing again.
    const inspected = await h['capture:files.inspect']([back]);
    expect(inspected.captures.map((x) => x.alreadyQueued)).toEqual([true, true]);

    // A recording added to the card: only its two files are copied.
    const added = writeFakeCard(back, {
      recordings: 1,
      start: new Date(2026, 10, 27, 7, 0, 0),
      firstSegment: 7,
      bytes: 1024 * 1024 + 3,
    });
    const third = c.cards.startImport(back).id;
    await vi.waitFor(
      () => expect(c.cards.list().imports.find((i) => i.id === third)).toMatchObject({ phase: 'done' }),
      { timeout: 20_000 },
    );
    const v3 = c.cards.list().imports.find((i) => i.id === third)!;
    expect(v3.files.filter((f) => f.state === 'verified').map((f) => f.source.split('/').pop())).toEqual(
      added.recordings.map((p) => p.split('/').pop()),
    );
    expect(v3.files.filter((f) => f.state === 'known')).toHaveLength(4);
    expect(v3.known).toMatchObject({ recordings: 3, known: 2, uploaded: 2 });
    // The whole card is copied by default: the new recording's preview (LRV) comes with it, and nothing older.
    const grown = libraryFiles(library).filter((f) => !before.includes(f) && f.includes('.insv:'));
    expect(grown.map((f) => f.split('/').pop()!.split(':')[0])).toEqual(
      [...added.recordings, ...added.others]
        .map((p) => p.split('/').pop()!)
        .filter((n) => n.endsWith('.insv'))
        .sort(),
    );
    expect((await h['capture:files.inspect']([back])).captures.map((x) => x.alreadyQueued)).toEqual([
      true,
      true,
      false,
    ]);
  });
});

describe('a recording placed while its card is imported', () => {
  it('is held at the card path until its copy verifies, then uploads from the copy only, byte-identical, registered once', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const { c, h, mounts, queueFile } = await core('held', () => gate);
    const { root, bytes } = await mountCard(c, mounts, 'X4', 2);
    c.cards.startImport(root);
    const placed = await placeAll(h, c, root);
    expect(placed.queued).toHaveLength(2);

    // Registered with the gateway meanwhile, but held: not one part is sent from the card.
    await vi.waitFor(() => expect(c.queueView().captures.map((x) => x.state)).toEqual(['registered', 'registered']), {
      timeout: 10_000,
    });
    const sentBefore = t.svc.storage.received.filter((r) => r.operation === 'UploadPart').length;
    await new Promise((r) => setTimeout(r, 300));
    const held = queuedFiles(queueFile);
    expect(held.map((f) => [f.path.startsWith(root + '/'), f.state, f.held])).toEqual(
      Array(4).fill([true, 'pending', 1]),
    );
    expect(c.queueView().files.every((f) => f.awaitingCopy === true)).toBe(true);
    expect(t.svc.storage.received.filter((r) => r.operation === 'UploadPart').length).toBe(sentBefore);

    // Storage slow, so the uploads still run when the card is pulled out: whatever they read after, they read from the copies.
    await t.svc.admin('POST', '/faults', {
      target: 'storage',
      operation: 'UploadPart',
      times: 0, // every part: one slow part alone lets the others finish before the card is out
      action: { type: 'latency', ms: 150 },
    });
    md5Bytes.n = 0;
    open();
    await vi.waitFor(() => expect(c.cards.list().imports[0]).toMatchObject({ phase: 'done', safeToRemove: true }), {
      timeout: 20_000,
    });
    rmSync(root, { recursive: true });
    const copies = c.cards.list().imports[0]!.verifiedCopies;

    await vi.waitFor(() => expect(queuedFiles(queueFile).map((f) => f.state)).toEqual(Array(4).fill('completed')), {
      timeout: 30_000,
    });
    const files = queuedFiles(queueFile);
    expect(files.map((f) => f.held)).toEqual([0, 0, 0, 0]);
    expect(files.map((f) => f.path).sort()).toEqual([...copies].sort());
    // The copy computes no part MD5s (docs/decisions/0030-part-md5-at-upload.md): each file is
    // hashed once, as its parts are read for sending, and never twice.
    expect(md5Bytes.n).toBe(files.reduce((n, f) => n + statSync(f.path).size, 0));
    for (const f of files) {
      const source = [...bytes.keys()].find((p) => p.endsWith(f.path.slice(f.path.indexOf('/DCIM/'))))!;
      expect(sha(await storedBytes(f.uploadId!))).toBe(sha(bytes.get(source)!));
    }
    // Each part of each file sent once: nothing went twice.
    const parts = t.svc.storage.received.filter(
      (r) => r.operation === 'UploadPart' && files.some((f) => r.key === t.svc.store.state.uploads[f.uploadId!]!.key),
    );
    expect(new Set(parts.map((p) => `${p.key} ${p.partNumber}`)).size).toBe(parts.length);
    expect(parts).toHaveLength(4 * 2);

    // Handed again (the copies, or the card's paths once more): never a second capture.
    const again = await h['capture:captures.register']([
      {
        paths: copies.slice(0, 2),
        structure: c.settings.view().structures[0]!.id,
        type: 'interior',
        capturedAt: '2026-11-24T08:00:00Z',
      },
    ]);
    expect(again.queued).toEqual([]);
    expect(again.refused[0]!.reason).toMatch(/Already in the queue/);
    expect(new Set(queuedFiles(queueFile).map((f) => f.captureRow)).size).toBe(2);
  });

  it('placed after its copy verified, is queued at the copy at once', async () => {
    const { c, h, mounts, queueFile } = await core('after');
    const { root } = await mountCard(c, mounts, 'X4', 1);
    c.cards.startImport(root);
    await vi.waitFor(() => expect(c.cards.list().imports[0]).toMatchObject({ phase: 'done' }), { timeout: 20_000 });
    const placed = await placeAll(h, c, root);
    expect(placed.queued).toHaveLength(1);
    const copies = c.cards.list().imports[0]!.verifiedCopies;
    expect(
      queuedFiles(queueFile)
        .map((f) => [f.path, f.held])
        .sort(),
    ).toEqual(copies.map((p) => [p, 0]).sort());
  });

  it('uploads from the card when its copy fails verification twice', async () => {
    // The second lens of each recording is damaged after every write: its copy never verifies.
    const damage = async (partial: string, dest: string) => {
      if (dest.includes('_10_')) writeFileSync(partial, 'not the card');
    };
    const { c, h, mounts, queueFile } = await core('failed', damage);
    const { root, bytes } = await mountCard(c, mounts, 'X4', 1);
    md5Bytes.n = 0;
    c.cards.startImport(root);
    await placeAll(h, c, root);
    await vi.waitFor(() => expect(queuedFiles(queueFile).map((f) => f.state)).toEqual(['completed', 'completed']), {
      timeout: 30_000,
    });
    const files = queuedFiles(queueFile);
    const lens10 = files.find((f) => f.path.includes('_10_'))!;
    expect(lens10.path.startsWith(root + '/')).toBe(true);
    expect(files.find((f) => f.path.includes('_00_'))!.path.startsWith(root + '/')).toBe(false);
    expect(sha(await storedBytes(lens10.uploadId!))).toBe(sha(bytes.get(lens10.path)!));
    // Each lens is hashed as it is sent, from the card or from its copy, once (the copy computes no part MD5s).
    expect(md5Bytes.n).toBe(files.reduce((n, f) => n + statSync(f.path).size, 0));
    expect(c.cards.list().imports[0]).toMatchObject({ phase: 'done', safeToRemove: false });
    // The capture's queue row says why it read the card.
    expect(c.queueView().captures[0]!.warnings).toContain(RELEASED);
  });

  it('uploads from the card after a restart mid-import: no import runs for held files then', async () => {
    const never = new Promise<void>(() => undefined);
    const first = await core('restart', () => never);
    const { root, bytes } = await mountCard(first.c, first.mounts, 'X4', 1);
    first.c.cards.startImport(root);
    await placeAll(first.h, first.c, root);
    await vi.waitFor(() => expect(queuedFiles(first.queueFile).map((f) => f.held)).toEqual([1, 1]));
    await first.c.close();
    t.release(first.c);

    const again = await core('restart', undefined, first.map);
    await vi.waitFor(
      () => expect(queuedFiles(again.queueFile).map((f) => f.state)).toEqual(['completed', 'completed']),
      { timeout: 30_000 },
    );
    for (const f of queuedFiles(again.queueFile)) {
      expect(f.held).toBe(0);
      expect(sha(await storedBytes(f.uploadId!))).toBe(sha(bytes.get(f.path)!));
    }
    expect(again.c.queueView().captures[0]!.warnings).toContain(RELEASED);
  });

  it('after a restart mid-import, uploads the files whose copies verified before the stop from those copies, the others from the card', async () => {
    // Recording 1's second lens never gets past its write; its first lens and recording 2 verify.
    const never = new Promise<void>(() => undefined);
    const first = await core('resume', async (_partial, dest) => {
      if (dest.includes('_10_001')) await never;
    });
    const { root, bytes } = await mountCard(first.c, first.mounts, 'X4', 2);
    first.c.cards.startImport(root);
    await placeAll(first.h, first.c, root);
    const destination = await vi.waitFor(() => c0(first.c.cards.list().imports[0]!.destination), { timeout: 10_000 });
    const copyOf = (p: string) => join(destination, p.slice(root.length));
    const [r1lens0, r1lens1, r2lens0, r2lens1] = [...bytes.keys()].sort();
    // Recording 2 whole is moved to its copies at once; recording 1's first lens is in place
    // (renamed only once verified) but its recording is not complete: still held at the stop.
    await vi.waitFor(
      () =>
        expect(
          queuedFiles(first.queueFile)
            .filter((f) => f.held === 0)
            .map((f) => f.path)
            .sort(),
        ).toEqual([copyOf(r2lens0!), copyOf(r2lens1!)]),
      { timeout: 20_000 },
    );
    await vi.waitFor(() => expect(existsSync(copyOf(r1lens0!))).toBe(true), { timeout: 20_000 });
    await first.c.close();
    t.release(first.c);
    // A restart ends the process and the system drops its offload's lock; here the stuck import
    // lives on in this process, so its lock is dropped as that end would.
    dropImportLocks(first.c.cards);
    // Whatever had a verified copy is gone from the card: it can only upload from the copy.
    for (const p of [r1lens0!, r2lens0!, r2lens1!]) rmSync(p);

    const again = await core('resume', undefined, first.map);
    const byCard = (p: string) => queuedFiles(again.queueFile).find((f) => f.path === p || f.path === copyOf(p))!;
    expect([r1lens0, r1lens1, r2lens0, r2lens1].map((p) => [byCard(p!).path, byCard(p!).held])).toEqual([
      [copyOf(r1lens0!), 0],
      [r1lens1, 0],
      [copyOf(r2lens0!), 0],
      [copyOf(r2lens1!), 0],
    ]);
    await vi.waitFor(
      () => expect(queuedFiles(again.queueFile).map((f) => f.state)).toEqual(Array(4).fill('completed')),
      { timeout: 30_000 },
    );
    for (const p of [r1lens0, r1lens1, r2lens0, r2lens1])
      expect(sha(await storedBytes(byCard(p!).uploadId!))).toBe(sha(bytes.get(p!)!));
    // Only the lens with no verified copy read the card, and its capture says so; the other capture does not.
    const warned = again.c.queueView().captures.filter((x) => x.warnings?.includes(RELEASED));
    expect(warned.map((x) => x.id)).toEqual([byCard(r1lens1!).captureRow]);

    // The offload stopped mid-way is recorded interrupted with its three verified copies, counted in the library's use.
    const db = new Database(again.queueFile, { readonly: true });
    const offloads = db.prepare('SELECT state, finished_at AS finishedAt FROM offloads').all();
    const copies = db
      .prepare('SELECT copy_path AS copy FROM offload_files WHERE verified = 1 ORDER BY copy_path')
      .pluck()
      .all();
    db.close();
    expect(offloads).toEqual([{ state: 'interrupted', finishedAt: null }]);
    expect(copies).toEqual([copyOf(r1lens0!), copyOf(r2lens0!), copyOf(r2lens1!)]);
    expect((await again.c.cards.view()).usage).toEqual({ copies: 3, bytes: 3 * (6 * 1024 * 1024 + 4321) });
  });

  it('stays recorded as copying, its files held, when the queue is opened again mid-import (settings saved), and ends finished', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const { c, h, mounts, queueFile } = await core('reopen', () => gate);
    const { root } = await mountCard(c, mounts, 'X4', 1);
    c.cards.startImport(root);
    await placeAll(h, c, root);
    const state = () => {
      const db = new Database(queueFile, { readonly: true });
      try {
        return db.prepare('SELECT state FROM offloads').pluck().all();
      } finally {
        db.close();
      }
    };
    // The files are held as soon as they are placed; the offload's record comes once the card is
    // planned (main/offload/offload.ts): the queue is opened again once both are there.
    await vi.waitFor(() => expect(queuedFiles(queueFile).map((f) => f.held)).toEqual([1, 1]));
    await vi.waitFor(() => expect(state()).toEqual(['copying']));
    await h['capture:settings.useLocalService']();
    // The import runs on: not interrupted, and nothing released to the card.
    expect(state()).toEqual(['copying']);
    expect(queuedFiles(queueFile).map((f) => f.held)).toEqual([1, 1]);
    open();
    await vi.waitFor(() => expect(queuedFiles(queueFile).map((f) => f.state)).toEqual(['completed', 'completed']), {
      timeout: 30_000,
    });
    expect(state()).toEqual(['finished']);
    expect(queuedFiles(queueFile).every((f) => !f.path.startsWith(root + '/'))).toBe(true);
  });
});

/** A value once it is there (for vi.waitFor): throws while it is null. */
function c0<T>(v: T | null): T {
  if (v === null) throw new Error('not yet');
  return v;
}
