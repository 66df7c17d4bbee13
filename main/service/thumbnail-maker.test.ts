import { Database } from '../testing/queue-backdoors.js';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentFingerprint } from '../intake/file-identity.js';
import { ThumbnailMaker } from './thumbnail-maker.js';

const fixtures = fileURLToPath(new URL('../../../shared/fixtures', import.meta.url));
// The smallest JPEG header a check of the magic bytes accepts, and some bytes after it.
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 7)]);
const dataUrl = (b: Buffer) => `data:image/jpeg;base64,${b.toString('base64')}`;

describe('ThumbnailMaker', () => {
  let work: string;
  let library: string;
  let maker: ThumbnailMaker;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'thumb-maker-'));
    library = join(work, 'library');
    maker = new ThumbnailMaker(() => library);
  });
  afterEach(async () => {
    await maker.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('refuses a path the registration table was not given', async () => {
    await expect(maker.get(join(fixtures, 'walkthrough.mp4'))).rejects.toThrow(
      'This file is not among the recordings listed for registration or queued.',
    );
  });

  it('reads a file of the upload queue too (the queue rows show thumbnails), and no other', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE files (path TEXT)');
    db.prepare('INSERT INTO files (path) VALUES (?)').run(join(fixtures, 'walkthrough.mp4'));
    const queued = new ThumbnailMaker(
      () => library,
      () => db,
    );
    try {
      expect((await queued.get(join(fixtures, 'walkthrough.mp4'))).kind).toBe('frames');
      await expect(queued.get(join(fixtures, 'sample.insv'))).rejects.toThrow('not among the recordings');
    } finally {
      await queued.close();
      db.close();
    }
  });

  it('hands the frames to decode, keeps the JPEG in <library>/.thumbnails by content fingerprint, and a copy elsewhere finds it', async () => {
    const card = join(fixtures, 'walkthrough.mp4');
    const copy = join(work, 'copy.mp4');
    copyFileSync(card, copy);
    maker.allow([card, copy]);
    const first = await maker.get(card);
    expect(first).toMatchObject({ kind: 'frames', source: 'recording', codec: 'avc1.640028', atUs: 1_000_000 });
    expect((first as { url: string }).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[\w-]{43}\/1$/);

    expect(await maker.save(card, dataUrl(JPEG))).toEqual({ kind: 'image', dataUrl: dataUrl(JPEG) });
    const key = await contentFingerprint(card, readFileSync(card).length);
    expect(readFileSync(join(library, '.thumbnails', `${key}.jpg`)).equals(JPEG)).toBe(true);
    // The verified copy in the library has the same bytes: its thumbnail is the card's, not decoded again.
    expect(await maker.get(copy)).toEqual({ kind: 'image', dataUrl: dataUrl(JPEG) });
  });

  it('decodes from the camera’s preview (LRV) beside the recording, never the recording, and from the recording when asked or when there is none', async () => {
    // An X4's folder: the lens is random bytes here, its preview a real H.264 video.
    const dir = join(work, 'DCIM', 'Camera01');
    mkdirSync(dir, { recursive: true });
    const lens = join(dir, 'VID_20261124_080000_00_001.insv');
    const preview = join(dir, 'LRV_20261124_080000_11_001.lrv');
    writeFileSync(lens, Buffer.alloc(8192, 0x5a));
    copyFileSync(join(fixtures, 'sample.insv'), preview);
    const alone = join(dir, 'VID_20261124_080100_00_002.insv');
    copyFileSync(join(fixtures, 'sample.insv'), alone);
    maker.allow([lens, alone]);

    const view = await maker.get(lens);
    expect(view).toMatchObject({ kind: 'frames', source: 'preview', codec: 'avc1.4d402a', codedWidth: 736 });
    const { url, samples } = view as { url: string; samples: { offset: number; size: number }[] };
    // The URL serves the preview's bytes, the samples where the plan says.
    const whole = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(whole.equals(readFileSync(preview))).toBe(true);
    const s = samples[0]!;
    const part = await fetch(url, { headers: { Range: `bytes=${s.offset}-${s.offset + s.size - 1}` } });
    expect(part.status).toBe(206);
    expect(
      Buffer.from(await part.arrayBuffer()).equals(readFileSync(preview).subarray(s.offset, s.offset + s.size)),
    ).toBe(true);
    // Without a preview: the recording itself.
    expect(await maker.get(alone)).toMatchObject({ kind: 'frames', source: 'recording', codec: 'avc1.4d402a' });
    // The preview could not be decoded: the recording is asked for, and this one holds no MP4,
    // which is said and kept at once.
    const reason = 'No preview: not an MP4 container, or an unfinished recording';
    expect(await maker.get(lens, { recording: true })).toEqual({ kind: 'none', reason });
    expect(await maker.get(lens)).toEqual({ kind: 'none', reason });
  });

  it('refuses bytes that are not a JPEG and writes nothing', async () => {
    const card = join(fixtures, 'walkthrough.mp4');
    maker.allow([card]);
    await expect(maker.save(card, dataUrl(Buffer.from('<svg onload=alert(1)>')))).rejects.toThrow(
      'The thumbnail is not a JPEG image.',
    );
    expect(() => readdirSync(join(library, '.thumbnails'))).toThrow();
  });

  it('keeps the verdict that a recording cannot be decoded, so the icon shows next time', async () => {
    const card = join(fixtures, 'sample.insv');
    maker.allow([card]);
    await maker.undecodable(card, 'No preview: its format or codec is not supported here');
    expect(await maker.get(card)).toEqual({
      kind: 'none',
      reason: 'No preview: its format or codec is not supported here',
    });
  });

  it('the hourly sweep prunes thumbnails not used for 30 days, never those of queued recordings or of recordings listed for registration', async () => {
    const DAY = 24 * 60 * 60 * 1000;
    const rec = (name: string, fill: number) => {
      const p = join(work, name);
      writeFileSync(p, Buffer.alloc(4096, fill));
      return p;
    };
    const queued = rec('queued.insv', 1);
    const legacy = rec('legacy.insv', 2); // queued before fingerprints were kept
    const listed = rec('listed.insv', 3);
    const seen = rec('seen.insv', 4);
    const stale = rec('stale.insv', 5);
    const keyOf = (p: string) => contentFingerprint(p, 4096);
    const cache = join(library, '.thumbnails');
    mkdirSync(cache, { recursive: true });
    const old = new Date(Date.now() - 40 * DAY);
    for (const p of [queued, legacy, listed, seen, stale]) {
      const file = join(cache, `${await keyOf(p)}.jpg`);
      writeFileSync(file, JPEG);
      utimesSync(file, old, old);
    }
    // Shown in an earlier session: its use is kept in the cache entry itself.
    maker.allow([seen]);
    expect(await maker.get(seen)).toEqual({ kind: 'image', dataUrl: dataUrl(JPEG) });

    const db = new Database(':memory:');
    db.exec('CREATE TABLE files (path TEXT, fingerprint TEXT)');
    db.prepare('INSERT INTO files (path, fingerprint) VALUES (?, ?)').run(
      join(work, 'elsewhere', 'queued.insv'),
      await keyOf(queued),
    );
    db.prepare('INSERT INTO files (path, fingerprint) VALUES (?, NULL)').run(legacy);
    const now = new ThumbnailMaker(
      () => library,
      () => db,
    );
    try {
      now.allow([listed]);
      const result = await now.prune();
      expect(result.removed).toEqual([`${await keyOf(stale)}.jpg`]);
      expect(readdirSync(cache).sort()).toEqual(
        (await Promise.all([queued, legacy, listed, seen].map(async (p) => `${await keyOf(p)}.jpg`))).sort(),
      );
      // The bound removes the one not in use (seen), never the three in use.
      const bounded = await now.prune(Date.now(), { maxBytes: 1 });
      expect(bounded.removed).toEqual([`${await keyOf(seen)}.jpg`]);
      expect(readdirSync(cache)).toHaveLength(3);
    } finally {
      await now.close();
      db.close();
    }
  });
});
