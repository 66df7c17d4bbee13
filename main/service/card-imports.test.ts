import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DetectedCardView, ImportView } from '../../shared/ipc.js';
import { writeFakeCard } from '../card/fake-card.js';
import { listOffloads } from '../offload/record.js';
import { openQueueDatabase } from '../queue/db.js';
import { defaultLibraryFolder } from '../settings/library-settings.js';
import { CardImports } from './card-imports.js';
import { ThumbnailMaker } from './thumbnail-maker.js';
import { useWorkDir } from '../testing/kit.js';

const work = useWorkDir('card-imports-test');
let cardImports: CardImports | undefined;
afterEach(() => cardImports?.close());

/** A cardImports over a mount folder of the test's own and a queue in a temporary folder, with what it emitted. */
function importsAt(name: string, eject?: (mountPoint: string) => Promise<{ ejected: boolean; message: string }>) {
  const mounts = join(work, name, 'media');
  mkdirSync(mounts, { recursive: true });
  const { db } = openQueueDatabase(join(work, name, 'queue.db'));
  const store = new Map<string, unknown>();
  const cards: DetectedCardView[][] = [];
  const modes: boolean[] = [];
  const imports: ImportView[] = [];
  cardImports = new CardImports({
    roots: [mounts],
    pollMs: 50,
    store: { get: (k) => store.get(k), set: (k, v) => store.set(k, v) },
    queueDb: () => db,
    ...(eject ? { eject } : {}),
    emit: (event, payload) => {
      if (event === 'capture:event.cards') {
        cards.push((payload as { cards: DetectedCardView[] }).cards);
        modes.push((payload as { uploadFromCard: boolean }).uploadFromCard);
      }
      if (event === 'capture:event.import') imports.push(payload as ImportView);
    },
  });
  return { cardImports, mounts, db, store, cards, modes, imports };
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const until = async (ok: () => boolean, what: string) => {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
};

/**
 * A started cardImports (see importsAt) with its library at `work/<name>/library`, and the fake card
 * `cardName` (`card` as writeFakeCard takes it) written aside and moved under the mount folder at
 * once, as a volume appears whole; resolves once the cardImports offers it, with the card's root.
 */
async function importsWithCard(
  name: string,
  cardName: string,
  card: Parameters<typeof writeFakeCard>[1],
  eject?: Parameters<typeof importsAt>[1],
) {
  const d = importsAt(name, eject);
  const library = join(work, name, 'library');
  d.store.set('library', { library, keepDays: 7, uploadFromCard: false });
  d.cardImports.start();
  writeFakeCard(join(work, name, cardName), card);
  const root = join(d.mounts, cardName);
  renameSync(join(work, name, cardName), root);
  await until(() => (d.cards.at(-1)?.length ?? 0) > 0, 'the card');
  return { d, library, root };
}

describe('CardImports', () => {
  it('ejects the card of an import only once it is safe to remove, by its mount point', async () => {
    const asked: string[] = [];
    const { d, root } = await importsWithCard('eject', 'X4_EJECT', { recordings: 1 }, async (mountPoint) => {
      asked.push(mountPoint);
      return { ejected: true, message: 'X4_EJECT was ejected: you can take it out of the reader.' };
    });
    const { id } = d.cardImports.startImport(root);
    await expect(d.cardImports.eject(id)).rejects.toThrow(
      'The card X4_EJECT is not safe to remove yet: keep it in the reader.',
    );
    await until(() => d.imports.at(-1)?.safeToRemove === true, 'safe to remove');
    expect(await d.cardImports.eject(id)).toEqual({
      ejected: true,
      message: 'X4_EJECT was ejected: you can take it out of the reader.',
    });
    expect(asked).toEqual([root]);
  });

  it('closing stops an import under way within a second: no half-written copy left, the offload recorded as interrupted', async () => {
    const { d, library, root } = await importsWithCard('closing', 'X4_CARD', {
      recordings: 1,
      bytes: 96 * 1024 * 1024,
    });
    d.cardImports.startImport(root);
    await until(() => (d.imports.at(-1)?.bytesDone ?? 0) >= 16 * 1024 * 1024, 'the copy under way');
    const t = performance.now();
    d.cardImports.close();
    await d.cardImports.settled();
    expect(performance.now() - t).toBeLessThan(1000);
    const left = (readdirSync(library, { recursive: true }) as string[]).filter((p) =>
      statSync(join(library, p)).isFile(),
    );
    expect(left.filter((p) => p.endsWith('.partial'))).toEqual([]);
    expect(left.filter((p) => p.endsWith('.insv'))).toEqual([]);
    expect(listOffloads(d.db).map((o) => o.state)).toEqual(['interrupted']);
  }, 120_000);

  it('a person stops an import within a second: the verified recordings kept, nothing half-written, and the view says what was not copied', async () => {
    const { d, library, root } = await importsWithCard('stopping', 'X4_STOP', {
      recordings: 3,
      bytes: 32 * 1024 * 1024,
    });
    const { id } = d.cardImports.startImport(root);
    // One recording verified, the next one's copy under way.
    await until(() => (d.imports.at(-1)?.verifiedCopies.length ?? 0) >= 2, 'the first recording verified');
    const t = performance.now();
    await d.cardImports.stopImport(id);
    expect(performance.now() - t).toBeLessThan(1000);
    const last = d.imports.at(-1)!;
    expect(last.phase).toBe('failed');
    const verified = last.files.filter((f) => f.state === 'verified');
    const waiting = last.files.filter((f) => f.state === 'waiting');
    expect(verified.length).toBeGreaterThanOrEqual(2);
    expect(waiting.length).toBeGreaterThan(0);
    expect(last.files.filter((f) => f.state === 'copying')).toEqual([]);
    expect(last.error).toBe(
      `Import stopped: ${verified.length} files verified and kept in ${last.destination}; nothing copied for ${waiting.length} files (no partial copy left).`,
    );
    // On disk: exactly the files said verified, each whole (a recording whose other lens was not
    // copied keeps its verified file; it is not among verifiedCopies), and no partial one.
    const left = (readdirSync(library, { recursive: true }) as string[]).filter((p) =>
      statSync(join(library, p)).isFile(),
    );
    expect(left.filter((p) => p.endsWith('.partial'))).toEqual([]);
    const copies = left.filter((p) => p.endsWith('.insv')).map((p) => join(library, p));
    expect(copies.map((c) => basename(c)).sort()).toEqual(verified.map((f) => f.name).sort());
    for (const f of verified) {
      const copy = copies.find((c) => basename(c) === f.name)!;
      expect(sha(readFileSync(copy))).toBe(sha(readFileSync(f.source)));
    }
    for (const c of last.verifiedCopies) expect(copies).toContain(c);
    expect(listOffloads(d.db).map((o) => o.state)).toEqual(['interrupted']);
    await expect(d.cardImports.stopImport(id)).rejects.toThrow('This import is not copying any more');
  }, 120_000);

  it('offers a card that appears under a mount folder, imports it into the library, records it, and counts the library', async () => {
    const d = importsAt('one');
    // The recordings only: the whole card is the next test's.
    d.store.set('library', {
      library: join(work, 'one', 'library'),
      keepDays: 7,
      uploadFromCard: false,
      wholeCard: false,
    });
    d.cardImports.start();
    await until(() => d.cards.length > 0, 'the first look');
    expect(d.cards.at(-1)).toEqual([]);

    // Written aside, then moved in at once: a volume appears whole when it is mounted.
    writeFakeCard(join(work, 'one', 'X4_CARD'), { recordings: 2, bytes: 4096 });
    const card = { root: join(d.mounts, 'X4_CARD') };
    renameSync(join(work, 'one', 'X4_CARD'), card.root);
    await until(() => (d.cards.at(-1)?.length ?? 0) > 0, 'the card');
    expect(d.cards.at(-1)).toEqual([{ root: card.root, name: 'X4_CARD', recordings: 2, bytes: 4 * 4096 }]);
    expect(() => d.cardImports.startImport(join(d.mounts, 'elsewhere'))).toThrow(/is not an Insta360 card mounted now/);

    const first = d.cardImports.startImport(card.root);
    expect(first.phase).toBe('copying');
    expect(() => d.cardImports.startImport(card.root)).toThrow('The card X4_CARD is being imported already.');
    await until(() => d.imports.at(-1)?.phase === 'done', 'the import');
    const done = d.imports.at(-1)!;
    expect(done.safeToRemove).toBe(true);
    expect(done.verifiedCopies).toHaveLength(4);
    expect(d.cardImports.list().imports).toEqual([done]);

    const [record] = listOffloads(d.db);
    expect(record).toMatchObject({
      card: card.root,
      cardName: 'X4_CARD',
      fileCount: 4,
      bytes: 4 * 4096,
      verified: true,
    });
    expect(record!.files.map((f) => f.copy).sort()).toEqual([...done.verifiedCopies].sort());

    const view = await d.cardImports.view();
    expect(view).toEqual({
      library: join(work, 'one', 'library'),
      keepDays: 7,
      uploadFromCard: false,
      wholeCard: false,
      usage: { bytes: 4 * 4096, copies: 4 },
    });
    // A copy deleted by hand is no longer counted.
    rmSync(done.verifiedCopies[0]!);
    expect((await d.cardImports.view()).usage).toEqual({ bytes: 3 * 4096, copies: 3 });

    // The card pulled out: it is no longer offered, and the finished import can be dismissed.
    rmSync(card.root, { recursive: true });
    await until(() => d.cards.at(-1)?.length === 0, 'the card to go');
    d.cardImports.dismiss(done.id);
    expect(d.cardImports.list()).toEqual({ cards: [], imports: [], uploadFromCard: false });
    expect(statSync(done.verifiedCopies[1]!).size).toBe(4096);
  });

  it("keeps no part MD5s from the copy: the upload computes each part's as it reads it, so safe to remove waits for no hashing", async () => {
    const d = importsAt('md5');
    d.store.set('library', { library: join(work, 'md5', 'library'), keepDays: 7, uploadFromCard: false });
    const PART = 5 * 1024 * 1024;
    writeFakeCard(join(work, 'md5', 'X4'), { recordings: 1, bytes: 2 * PART + 1234 });
    renameSync(join(work, 'md5', 'X4'), join(d.mounts, 'X4'));
    d.cardImports.start();
    await until(() => (d.cards.at(-1)?.length ?? 0) > 0, 'the card');
    d.cardImports.startImport(join(d.mounts, 'X4'));
    await until(() => d.imports.at(-1)?.phase === 'done', 'the import');
    const done = d.imports.at(-1)!;
    expect(done.safeToRemove).toBe(true);
    expect(done.verifiedCopies).toHaveLength(2);
    for (const copy of done.verifiedCopies) {
      const bytes = readFileSync(join(d.mounts, 'X4', relative(done.destination!, copy)));
      expect(createHash('sha256').update(readFileSync(copy)).digest('hex')).toBe(
        createHash('sha256').update(bytes).digest('hex'),
      );
    }
    expect(d.db.prepare('SELECT COUNT(*) AS n FROM part_md5s').get()).toEqual({ n: 0 });
  });

  it('copies the whole card by default: previews, thumbnails and MISC verified and recorded, only recordings offered', async () => {
    const { d, root } = await importsWithCard('whole', 'X4_WHOLE', { recordings: 2, bytes: 4096 });
    d.cardImports.startImport(root);
    await until(() => d.imports.at(-1)?.phase === 'done', 'the import');
    const done = d.imports.at(-1)!;
    expect(done.safeToRemove).toBe(true);
    expect(done.verifiedCopies.every((c) => c.endsWith('.insv') && !c.includes('LRV_'))).toBe(true);
    expect(done.verifiedCopies).toHaveLength(4);
    // 2 LRV previews, 2 thumbnails and MISC/version.txt.
    expect(done.others).toMatchObject({ files: 5, verified: 5, failed: 0 });
    expect(readFileSync(join(done.destination!, 'MISC', 'version.txt'), 'utf8')).toBe('fw v1.0\n');
    const [record] = listOffloads(d.db);
    expect(record).toMatchObject({ fileCount: 9, verified: true });
    expect(record!.files.map((f) => relative(done.destination!, f.copy))).toContain(join('MISC', 'version.txt'));
  });

  it('keeps the library settings apart, with the defaults: the videos folder, 7 days, reading from the copies', async () => {
    const d = importsAt('two');
    expect(d.cardImports.library.get()).toEqual({
      library: defaultLibraryFolder(),
      keepDays: 7,
      uploadFromCard: false,
      wholeCard: true,
    });
    expect(defaultLibraryFolder('linux', '/home/ana')).toBe('/home/ana/Videos/Capture Uploader');
    expect(defaultLibraryFolder('darwin', '/Users/ana')).toBe('/Users/ana/Movies/Capture Uploader');
    expect(defaultLibraryFolder()).toContain(homedir());
    const saved = await d.cardImports.save({ library: join(work, 'two', 'lib'), keepDays: 3, uploadFromCard: true });
    expect(saved).toEqual({
      library: join(work, 'two', 'lib'),
      keepDays: 3,
      uploadFromCard: true,
      wholeCard: true,
      usage: { bytes: 0, copies: 0 },
    });
    expect(d.store.get('library')).toEqual({
      library: join(work, 'two', 'lib'),
      keepDays: 3,
      uploadFromCard: true,
      wholeCard: true,
    });
    expect(() => d.cardImports.startImport('/nowhere')).toThrow(/not an Insta360 card mounted now/);
  });

  it('says with the cards whether they are offered for upload straight from the card, at once when the setting is saved', async () => {
    const d = importsAt('three');
    d.store.set('library', { library: join(work, 'three', 'library'), keepDays: 7, uploadFromCard: false });
    writeFakeCard(join(work, 'three', 'X4'), { recordings: 1, bytes: 1024 });
    renameSync(join(work, 'three', 'X4'), join(d.mounts, 'X4'));
    d.cardImports.start();
    await until(() => (d.cards.at(-1)?.length ?? 0) > 0, 'the card');
    expect(d.modes.at(-1)).toBe(false);
    expect(d.cardImports.list().uploadFromCard).toBe(false);

    const before = d.modes.length;
    await d.cardImports.save({ library: join(work, 'three', 'library'), keepDays: 7, uploadFromCard: true });
    // Saved, the window is told without waiting for a card to come or go, with the cards mounted now.
    expect(d.modes.slice(before)).toEqual([true]);
    expect(d.cards.at(-1)!.map((c) => c.name)).toEqual(['X4']);
    expect(d.cardImports.list()).toMatchObject({ uploadFromCard: true, imports: [] });
    await d.cardImports.save({ library: join(work, 'three', 'library'), keepDays: 7, uploadFromCard: false });
    expect(d.modes.at(-1)).toBe(false);
  });

  it("the retention sweep prunes the library's thumbnails too, and a failed prune is logged, not thrown", async () => {
    const library = join(work, 'thumbs', 'library');
    const cache = join(library, '.thumbnails');
    mkdirSync(cache, { recursive: true });
    const stale = join(cache, `${'a'.repeat(64)}.jpg`);
    writeFileSync(stale, Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
    const old = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
    utimesSync(stale, old, old);
    const { db } = openQueueDatabase(join(work, 'thumbs', 'queue.db'));
    const store = new Map<string, unknown>([['library', { library, keepDays: 7, uploadFromCard: false }]]);
    const thumbnails = new ThumbnailMaker(
      () => library,
      () => db,
    );
    const warnings: string[] = [];
    let fail = false;
    cardImports = new CardImports({
      roots: [join(work, 'thumbs', 'media')],
      store: { get: (k) => store.get(k), set: (k, v) => store.set(k, v) },
      queueDb: () => db,
      emit: () => undefined,
      log: { info: () => undefined, warn: (m) => warnings.push(m) },
      pruneThumbnails: (now) => (fail ? Promise.reject(new Error('EIO: i/o error')) : thumbnails.prune(now)),
    });
    await cardImports.sweep();
    expect(existsSync(stale)).toBe(false);
    fail = true;
    await cardImports.sweep();
    expect(warnings).toEqual(["The library's old thumbnails could not be removed: EIO: i/o error"]);
    await thumbnails.close();
    db.close();
  });
});
