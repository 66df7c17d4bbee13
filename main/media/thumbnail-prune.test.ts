import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { THUMBNAIL_MAX_AGE_MS, THUMBNAIL_MAX_BYTES, pruneThumbnails } from './thumbnail-prune.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2026-11-25T12:00:00Z');
const key = (n: number) => n.toString(16).padStart(64, '0');

describe('pruning the thumbnail cache', () => {
  let folder: string;
  beforeEach(() => {
    folder = join(mkdtempSync(join(tmpdir(), 'thumb-prune-')), '.thumbnails');
    mkdirSync(folder);
  });
  afterEach(() => rmSync(join(folder, '..'), { recursive: true, force: true }));

  /** Writes an entry of `bytes` bytes last used `daysAgo` days before NOW. */
  const entry = (name: string, bytes: number, daysAgo: number) => {
    writeFileSync(join(folder, name), Buffer.alloc(bytes, 1));
    const at = new Date(NOW - daysAgo * DAY);
    utimesSync(join(folder, name), at, at);
  };

  it('keeps 30 days and 200 MiB by default', () => {
    expect(THUMBNAIL_MAX_AGE_MS).toBe(30 * DAY);
    expect(THUMBNAIL_MAX_BYTES).toBe(200 * 1024 * 1024);
  });

  it('removes entries not used for 30 days, keeps recent ones and any in use, leaves other files alone', async () => {
    entry(`${key(1)}.jpg`, 100, 45);
    entry(`${key(2)}.none`, 30, 31);
    entry(`${key(3)}.jpg`, 100, 29);
    entry(`${key(4)}.jpg`, 100, 400); // in use: a recording still queued
    entry(`${key(5)}.jpg.4242.part`, 50, 2); // left by a process that died
    entry(`${key(6)}.jpg.4243.part`, 50, 0.01); // being written now
    entry('notes.txt', 10, 400);
    const result = await pruneThumbnails(folder, new Set([key(4)]), NOW);
    expect(result.removed.sort()).toEqual([`${key(1)}.jpg`, `${key(2)}.none`, `${key(5)}.jpg.4242.part`]);
    expect(result.freedBytes).toBe(180);
    expect(readdirSync(folder).sort()).toEqual([
      `${key(3)}.jpg`,
      `${key(4)}.jpg`,
      `${key(6)}.jpg.4243.part`,
      'notes.txt',
    ]);
    expect(result.keptBytes).toBe(200);
  });

  it('keeps the cache under its bound, removing the entries used longest ago first, never one in use', async () => {
    // Five recent entries of 1,000 bytes, used 1 to 5 days ago; the one used longest ago is in use.
    for (let i = 1; i <= 5; i++) entry(`${key(i)}.jpg`, 1000, i);
    const result = await pruneThumbnails(folder, new Set([key(5)]), NOW, { maxBytes: 2500 });
    expect(result.removed).toEqual([`${key(4)}.jpg`, `${key(3)}.jpg`, `${key(2)}.jpg`]);
    expect(readdirSync(folder).sort()).toEqual([`${key(1)}.jpg`, `${key(5)}.jpg`]);
    expect(result.keptBytes).toBe(2000);
  });

  it('removes nothing in use even when the bound cannot be kept', async () => {
    for (let i = 1; i <= 3; i++) entry(`${key(i)}.jpg`, 1000, 90);
    const result = await pruneThumbnails(folder, new Set([key(1), key(2), key(3)]), NOW, { maxBytes: 10 });
    expect(result.removed).toEqual([]);
    expect(readdirSync(folder)).toHaveLength(3);
  });

  it('a library without a cache folder has nothing to prune', async () => {
    expect(await pruneThumbnails(join(folder, 'none-here'), new Set(), NOW)).toEqual({
      removed: [],
      freedBytes: 0,
      keptBytes: 0,
    });
  });
});
