import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { writeFakeCard } from '../card/fake-card.js';
import { openQueueDatabase } from '../queue/db.js';
import { openUploader } from '../service/uploader.js';
import { offloadCard } from './offload.js';
import { listOffloads, OffloadRecorder } from './record.js';
import { killed, stuckInAnotherProcess } from '../testing/offload-child.js';
import { unreachableGatewayConfig, useWorkDir } from '../testing/kit.js';

// A copy is written as `.HEX.partial` and renamed once verified; an app stopped
// mid-copy leaves it behind. The queue's open removes it, and only it.
const work = useWorkDir('partials-test');
const gateway = unreachableGatewayConfig('p1');

/** Every file and link under `dir`, relative, sorted; the queue's own files aside. */
const tree = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .filter((p) => !p.startsWith('data/'))
    .sort();

describe('the half-written copies of an interrupted offload', () => {
  it('are removed when the queue opens; those of an offload still running, and every other file, stay', async () => {
    const dataDir = join(work, 'data');
    const library = join(work, 'library');
    mkdirSync(dataDir);
    const { db } = openQueueDatabase(join(dataDir, 'queue.db'));
    // Two offloads stuck on their last file's write, a minute apart (their own folders): the
    // first is the app stopped mid-copy (its process killed), the second an import this process still runs.
    const stuck = async (name: string, at: string) => {
      const card = writeFakeCard(join(work, name), { recordings: 2 });
      const last = card.recordings.at(-1)!.split('/').pop()!;
      const journal = new OffloadRecorder(() => db);
      let partial = '';
      void offloadCard(card.root, {
        library,
        journal,
        now: () => new Date(at),
        afterWrite: async (p, copy) => {
          if (!copy.endsWith(`/${last}`)) return;
          partial = p;
          await new Promise(() => undefined);
        },
      });
      await vi.waitFor(() => expect(listOffloads(db).find((o) => o.id === journal.id)?.files).toHaveLength(3));
      const dest = listOffloads(db).find((o) => o.id === journal.id)!.destination;
      expect(partial.startsWith(join(dest, 'DCIM', 'Camera01', '.'))).toBe(true);
      expect(existsSync(partial)).toBe(true);
      return { id: journal.id!, dest, partial };
    };
    const stopped = await stuckInAnotherProcess({
      dataDir,
      library,
      card: join(work, 'STOPPED'),
      at: '2026-11-25T09:00:00Z',
    });
    await killed(stopped.child);
    const running = await stuck('RUNNING', '2026-11-25T09:01:00Z');
    db.close();

    // Beside the stopped offload's copies: a person's own files that only look alike, a folder
    // and a link with the copy's kind of name; and a `.partial` in the library outside any offload.
    const cam = join(stopped.dest, 'DCIM', 'Camera01');
    writeFileSync(join(cam, '.notes.partial.txt'), 'mine');
    writeFileSync(join(cam, '.partial'), 'mine');
    writeFileSync(join(cam, 'clip.partial'), 'mine');
    mkdirSync(join(cam, '.folder.partial'));
    writeFileSync(join(cam, '.folder.partial', 'inside'), 'mine');
    writeFileSync(join(work, 'elsewhere'), 'mine');
    symlinkSync(join(work, 'elsewhere'), join(cam, '.link.partial'));
    writeFileSync(join(library, '.loose.partial'), 'mine');
    // A half-written copy of a version that named it `.NAME.partial`, left by an update mid-copy.
    writeFileSync(join(cam, '.VID_20231121_201609_00_001.insv.partial'), 'half');
    const before = tree(work);

    const u = openUploader({
      dataDir,
      gateway,
      copyRoute: { copying: () => false, copied: () => undefined, runningOffloads: () => [running.id] },
    });
    try {
      expect(listOffloads(u.queue.db).map((o) => [o.id, o.state])).toEqual([
        [stopped.id, 'interrupted'],
        [running.id, 'copying'],
      ]);
      expect(existsSync(stopped.partial)).toBe(false);
      expect(existsSync(running.partial)).toBe(true);
      // Nothing else went: the verified copies, the lookalikes, the folder, the link and its target.
      // The stopped offload may have had more than its last copy half-written when it was killed
      // (copies are written side by side): every one of those goes, and only those.
      const stoppedCopy = (p: string) =>
        join(work, p).startsWith(`${stopped.dest}/`) && /\/\.([0-9a-f]{16}|VID_[^/]+\.insv)\.partial$/.test(p);
      expect(before.filter(stoppedCopy)).toContain(stopped.partial.slice(work.length + 1));
      expect(tree(work)).toEqual(before.filter((p) => !stoppedCopy(p)));
    } finally {
      await u.close();
    }
  });
});

describe('an offload another process runs', () => {
  it('keeps its half-written copy and its record while that process lives, checked by its lock; once it is gone both are cleaned up', async () => {
    const dataDir = join(work, 'other-data');
    const library = join(work, 'other-library');
    mkdirSync(dataDir);
    const other = await stuckInAnotherProcess({
      dataDir,
      library,
      card: join(work, 'OTHER'),
      at: '2026-11-25T10:00:00Z',
    });
    try {
      // This process runs no offload: only the lock tells that the other one copies still.
      const u = openUploader({ dataDir, gateway });
      try {
        expect(listOffloads(u.queue.db).map((o) => [o.id, o.state])).toEqual([[other.id, 'copying']]);
        expect(existsSync(other.partial)).toBe(true);
      } finally {
        await u.close();
      }
      await killed(other.child);
      const after = openUploader({ dataDir, gateway });
      try {
        expect(listOffloads(after.queue.db).map((o) => [o.id, o.state])).toEqual([[other.id, 'interrupted']]);
        expect(existsSync(other.partial)).toBe(false);
        expect(readdirSync(dataDir).filter((n) => n.startsWith('offload-'))).toEqual([]);
      } finally {
        await after.close();
      }
    } finally {
      await killed(other.child);
    }
  });
});
