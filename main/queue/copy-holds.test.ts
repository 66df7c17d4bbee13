import { describe, expect, it } from 'vitest';
import type { CopyOf, CopyRoute } from './copy-holds.js';
import { RELEASED, settleCopyHolds } from './copy-holds.js';
import { migrate } from './db.js';
import { MIGRATIONS } from './migrations/index.js';
import { statusOutput } from '../cli/status.js';
import { UploadQueue } from './queue.js';
import { RemovedCards } from './removed-cards.js';
import { memoryQueueAt } from '../testing/queue-backdoors.js';
import { insertRows, oldCapture, oldFile } from '../testing/old-rows.js';
import { captureRequest } from '../testing/kit.js';
import { manifestFor } from '../testing/queue-rows.js';

const at = '2026-11-24T08:00:00.000Z';
const request = captureRequest(at, [
  { frameIndex: 1, fileName: 'VID_1_00_001.insv', contentType: 'video/insv', size: 1000 },
  { frameIndex: 2, fileName: 'VID_1_10_001.insv', contentType: 'video/insv', size: 1000 },
]);
const onCard = request.files.map((f) => ({
  path: `/media/ana/X4/DCIM/Camera01/${f.fileName}`,
  fileName: f.fileName,
  contentType: f.contentType,
  size: f.size,
  mtimeMs: 1_700_000_000_123,
  dev: '5',
  ino: `${f.frameIndex}`,
  ctimeNs: '1',
  fingerprint: 'ff',
}));
const copyOf = (path: string): CopyOf => ({
  path: path.replace('/media/ana/X4', '/lib/X4_2026'),
  facts: { size: 1000, mtimeMs: 1_700_000_000_123.7, dev: '9', ino: `1${path.slice(-5, -4)}`, ctimeNs: '77' },
});

/** A route over fixed sets: paths still copying, and paths whose copies verified. */
const route = (copying: string[], copied: string[]): CopyRoute => ({
  copying: (p) => copying.includes(p),
  copied: (p) => (copied.includes(p) ? copyOf(p) : undefined),
});

describe('files held for their verified copies', () => {
  it('13: a queue of version 12 opens with no file held', () => {
    const db = memoryQueueAt(12);
    insertRows(db, 'captures', [oldCapture(1, 'registered', 'walk', at)]);
    insertRows(db, 'files', [oldFile(1, '/card/a.insv', 1000, 1700000000123, 'pending')]);
    const before = db.prepare('SELECT * FROM files').all() as Record<string, unknown>[];
    migrate(db, ':memory:', MIGRATIONS, 13);
    expect(db.prepare('SELECT * FROM files').all()).toEqual([{ ...before[0], awaiting_copy: 0 }]);
    expect(new UploadQueue(db).schedule.dueFiles(Date.now(), 10).map((f) => f.id)).toEqual([1]);
  });

  it('queues a file still copying at the card, held and never due; one already copied at its copy; then moves and releases in one go', () => {
    const db = memoryQueueAt(undefined, false);
    const q = new UploadQueue(db);
    const [a, b] = onCard.map((f) => f.path) as [string, string];
    q.copyRoute = route([b], [a]);
    const row = q.enqueueCapture('walk', request, onCard);
    const [fa, fb] = q.filesOf(row);
    expect([fa!.path, fa!.awaitingCopy, fa!.ino, fa!.ctimeNs]).toEqual([
      copyOf(a).path,
      false,
      copyOf(a).facts.ino,
      '77',
    ]);
    expect([fb!.path, fb!.awaitingCopy]).toEqual([b, true]);
    // `capture-uploader status`, a reader beside the app, says why it waits.
    expect(statusOutput(q).filter((l) => l.includes('verified copy'))).toEqual([
      '      waiting for its verified copy: the app uploads it from the copy once the import verifies it',
    ]);
    // One part each: the files are 1,000 bytes.
    q.saveRegistration(row, 'cap-1', manifestFor(request));
    expect(q.schedule.dueFiles(Date.now(), 10).map((f) => f.id)).toEqual([fa!.id]);
    expect(q.schedule.nextDueAt()).toBeNull();

    // Still copying: nothing changes.
    expect(settleCopyHolds(db, route([b], [a]))).toEqual({ moved: [], released: [], captures: [] });
    // Verified: moved to the copy with its identity, released, in one transaction.
    expect(settleCopyHolds(db, route([], [a, b]))).toEqual({ moved: [fb!.id], released: [], captures: [row] });
    expect(q.file(fb!.id)).toMatchObject({
      path: copyOf(b).path,
      awaitingCopy: false,
      size: 1000,
      mtimeMs: 1_700_000_000_123,
      dev: '9',
      ino: copyOf(b).facts.ino,
      ctimeNs: '77',
      fingerprint: 'ff',
    });
    expect(q.schedule.dueFiles(Date.now(), 10).map((f) => f.id)).toEqual([fa!.id, fb!.id]);
  });

  it('releases at the card a file no import copies any more (failed twice, or after a restart), and a copy of other bytes is not used', () => {
    const db = memoryQueueAt(undefined, false);
    const q = new UploadQueue(db);
    const paths = onCard.map((f) => f.path);
    q.copyRoute = route(paths, []);
    const row = q.enqueueCapture('walk', request, onCard);
    expect(q.filesOf(row).map((f) => f.awaitingCopy)).toEqual([true, true]);
    // The first lens's "copy" is of another size (another card at the same mount point): not taken.
    const other: CopyRoute = {
      copying: () => false,
      copied: (p) => (p === paths[0] ? { ...copyOf(p), facts: { ...copyOf(p).facts, size: 999 } } : undefined),
    };
    const ids = q.filesOf(row).map((f) => f.id);
    expect(settleCopyHolds(db, other)).toEqual({ moved: [], released: ids, captures: [row] });
    expect(q.filesOf(row).map((f) => [f.path, f.awaitingCopy])).toEqual(paths.map((p) => [p, false]));
    // Its row says why it reads the card now, and what to do.
    expect(q.activity.warnings().get(row)).toEqual([RELEASED]);
  });

  it("leaves a held file out of a pulled card's wait: it reads nothing from the card, it waits for its copy", () => {
    const db = memoryQueueAt(undefined, false);
    const q = new UploadQueue(db);
    const [a, b] = onCard.map((f) => f.path) as [string, string];
    q.copyRoute = route([b], []);
    const row = q.enqueueCapture('walk', request, onCard);
    const [fa, fb] = q.filesOf(row);
    expect([fa!.awaitingCopy, fb!.awaitingCopy, fa!.path]).toEqual([false, true, a]);
    const cards = new RemovedCards(db, q.meta);
    cards.add({ root: '/media/ana/X4', name: 'X4', volumeId: null, since: at }, fa!.id);
    expect(cards.waitingFiles()).toEqual([fa!.id]);
  });
});
