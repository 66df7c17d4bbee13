import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DetectedCard } from './detect.js';
import { CardScanner, watchCards } from './detect.js';
import { writeFakeCard } from '../card/fake-card.js';

// Every file-system call made through node:fs/promises (the detection, the intake's walk and its
// file checks), by function and path: a poll's cost is counted, not timed.
const calls = vi.hoisted(() => ({ log: [] as { fn: string; path: string }[] }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const counted = <F extends (...a: never[]) => unknown>(fn: string, f: F) =>
    ((...a: Parameters<F>) => {
      calls.log.push({ fn, path: String(a[0]) });
      return f(...a);
    }) as unknown as F;
  const wrapped = {
    ...real,
    readdir: counted('readdir', real.readdir),
    opendir: counted('opendir', real.opendir),
    stat: counted('stat', real.stat),
    lstat: counted('lstat', real.lstat),
    realpath: counted('realpath', real.realpath),
    open: counted('open', real.open),
  };
  return { ...wrapped, default: wrapped };
});

const work = mkdtempSync(join(tmpdir(), 'detect-poll-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeEach(() => {
  calls.log.length = 0;
});

/** Sets a folder's times `ago` ms in the past: a card written yesterday, its times settled. */
const age = (path: string, ago: number) => utimesSync(path, new Date(Date.now() - ago), new Date(Date.now() - ago));
const under = (root: string) =>
  calls.log.filter((c) => c.path === root || c.path.startsWith(`${root}/`) || c.path.startsWith(`${root}\\`));
const HOUR = 60 * 60 * 1000;

describe('card detection polls cheaply (a card is not re-listed every 2 s)', () => {
  it('walks an unchanged card once, then only lists the mount folder and stats its root, DCIM and camera folder; walks it again when it gains a recording; forgets it when removed', async () => {
    const media = join(work, 'media');
    const root = join(media, 'X4_CARD');
    const fake = writeFakeCard(root, { recordings: 30 });
    const dcim = join(root, 'DCIM');
    const camera = join(dcim, 'Camera01');
    mkdirSync(join(media, 'USB_STICK', 'docs'), { recursive: true });
    for (const p of [root, dcim, camera, join(media, 'USB_STICK')]) age(p, 2 * HOUR);
    const scanner = new CardScanner();

    const first = await scanner.scan([media]);
    expect(first).toEqual([
      { root, name: 'X4_CARD', recordings: 30, bytes: fake.recordings.length * 2048 + (2 * (29 * 30)) / 2 },
    ]);
    // The first look walked the card: every recording was opened.
    expect(under(root).filter((c) => c.fn === 'open').length).toBe(fake.recordings.length + fake.others.length);

    calls.log.length = 0;
    const polls = 5;
    for (let i = 0; i < polls; i++) expect(await scanner.scan([media])).toEqual(first);
    // Per poll: one listing of the mount folder, and a stat of the card's root, DCIM and camera folder.
    expect(calls.log.filter((c) => c.fn === 'readdir' || c.fn === 'opendir').map((c) => c.path)).toEqual(
      Array(polls).fill(media),
    );
    expect(
      under(root)
        .map((c) => `${c.fn} ${c.path}`)
        .sort(),
    ).toEqual(
      [
        ...Array(polls).fill(`stat ${root}`),
        ...Array(polls).fill(`stat ${dcim}`),
        ...Array(polls).fill(`stat ${camera}`),
      ].sort(),
    );
    // The stick that is not a card is not listed again either.
    expect(under(join(media, 'USB_STICK')).map((c) => c.fn)).toEqual(Array(polls).fill('stat'));

    // The camera writes one more recording (both lenses): the camera folder's time changes.
    for (const lens of ['00', '10'])
      writeFileSync(join(camera, `VID_20261124_090000_${lens}_031.insv`), Buffer.alloc(1000));
    age(camera, HOUR);
    calls.log.length = 0;
    const grown = await scanner.scan([media]);
    expect(grown).toEqual([{ ...first[0]!, recordings: 31, bytes: first[0]!.bytes + 2000 }]);
    expect(
      under(root)
        .filter((c) => c.fn === 'readdir')
        .map((c) => c.path),
    ).toContain(camera);
    calls.log.length = 0;
    expect(await scanner.scan([media])).toEqual(grown);
    expect(under(root).filter((c) => c.fn !== 'stat')).toEqual([]);

    rmSync(root, { recursive: true });
    expect(await scanner.scan([media])).toEqual([]);
  });

  it('a watch of an unchanged card lists its files once, however many polls run', async () => {
    const media = join(work, 'media-night');
    const root = join(media, 'ONE_X2');
    writeFakeCard(root, { recordings: 10 });
    const camera = join(root, 'DCIM', 'Camera01');
    for (const p of [root, join(root, 'DCIM'), camera]) age(p, 2 * HOUR);
    const seen: DetectedCard[][] = [];
    const stop = watchCards([media], (cards) => seen.push(cards), 5);
    await expect
      .poll(() => calls.log.filter((c) => c.fn === 'readdir' && c.path === media).length)
      .toBeGreaterThanOrEqual(8);
    stop();
    expect(seen).toEqual([[{ root, name: 'ONE_X2', recordings: 10, bytes: 20 * 2048 + 90 }]]);
    expect(calls.log.filter((c) => c.fn === 'readdir' && c.path === camera).length).toBe(1);
  });

  it('walks a card again at each poll while its folders were modified within the last seconds (FAT keeps times to 2 s)', async () => {
    const media = join(work, 'media-fresh');
    const root = join(media, 'GO3');
    writeFakeCard(root, { recordings: 2 });
    const camera = join(root, 'DCIM', 'Camera01');
    const scanner = new CardScanner();
    const walks = () => calls.log.filter((c) => c.fn === 'readdir' && c.path === camera).length;
    await scanner.scan([media]);
    await scanner.scan([media]);
    expect(walks()).toBe(2);
    for (const p of [root, join(root, 'DCIM'), camera]) age(p, HOUR);
    await scanner.scan([media]);
    await scanner.scan([media]);
    await scanner.scan([media]);
    expect(walks()).toBe(3);
  });

  it('reports a card again when its count of recordings changes, not only when a card comes or goes', async () => {
    const media = join(work, 'media-watch');
    const root = join(media, 'X3');
    writeFakeCard(root, { recordings: 2, bytes: 100 });
    const camera = join(root, 'DCIM', 'Camera01');
    for (const p of [root, join(root, 'DCIM'), camera]) age(p, 2 * HOUR);
    const seen: DetectedCard[][] = [];
    const stop = watchCards([media], (cards) => seen.push(cards), 10);
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]!.map((c) => c.recordings)).toEqual([2]);
    for (const lens of ['00', '10'])
      writeFileSync(join(camera, `VID_20261124_090000_${lens}_003.insv`), Buffer.alloc(100));
    age(camera, HOUR);
    await expect.poll(() => seen.length).toBe(2);
    expect(seen[1]).toEqual([{ root, name: 'X3', recordings: 3, bytes: 600 }]);
    stop();
  });
});
