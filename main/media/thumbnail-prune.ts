import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A cached thumbnail not used for this long is removed at the hourly sweep, unless its recording
 * is in use: 30 days, in ms. A month covers a project's walks being looked back at; a recording
 * seen again after that is simply decoded again (one first frame, well under a second).
 */
export const THUMBNAIL_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The cache's bound in bytes: 200 MiB, some 10,000 thumbnails of 20 KiB. Past it, the entries not
 * in use that were used longest ago go first, whatever their age.
 */
export const THUMBNAIL_MAX_BYTES = 200 * 1024 * 1024;

/** A half-written entry (`<file>.<pid>.part`) older than this (ms) was left by a process that died: removed. */
const PART_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** Limits of pruneThumbnails (defaults: THUMBNAIL_MAX_AGE_MS and THUMBNAIL_MAX_BYTES). */
export interface ThumbnailPruneLimits {
  /** An entry not in use and not used for longer than this (ms) is removed. */
  maxAgeMs?: number;
  /** The cache's total bytes are brought under this, removing entries not in use, used longest ago first. */
  maxBytes?: number;
}

/** What a prune did: the entries removed (file names), the bytes freed, and the bytes the cache holds now. */
export interface ThumbnailPruneResult {
  removed: string[];
  freedBytes: number;
  keptBytes: number;
}

/**
 * Prunes a thumbnail cache folder (`<library>/.thumbnails`, main/media/thumbnail-cache.ts).
 * An entry is `<key>.jpg` or `<key>.none`, `key` a recording's content fingerprint; its
 * modification time is when it was last used (the cache sets it on every read). An entry whose key
 * is in `inUse` (a recording in the queue or in the registration step) is never removed. Any other
 * is removed when last used more than `maxAgeMs` before `now` (ms since 1970); then, while the
 * folder holds more than `maxBytes`, the ones used longest ago. Files of other names are left
 * alone, but for half-written entries a day old. A folder not there gives nothing removed.
 * Throws the file system's error other than ENOENT.
 */
export async function pruneThumbnails(
  folder: string,
  inUse: ReadonlySet<string>,
  now: number,
  limits: ThumbnailPruneLimits = {},
): Promise<ThumbnailPruneResult> {
  const maxAgeMs = limits.maxAgeMs ?? THUMBNAIL_MAX_AGE_MS;
  const maxBytes = limits.maxBytes ?? THUMBNAIL_MAX_BYTES;
  const result: ThumbnailPruneResult = { removed: [], freedBytes: 0, keptBytes: 0 };
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return result;
    throw err;
  }
  const entries: { name: string; size: number; usedAt: number; inUse: boolean }[] = [];
  for (const name of names.sort()) {
    const entry = /^([0-9a-f]{64})\.(jpg|none)$/.exec(name);
    const part = /^[0-9a-f]{64}\.(jpg|none)\.\d+\.part$/.test(name);
    if (!entry && !part) continue;
    const s = await stat(join(folder, name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null; // removed meanwhile
      throw err;
    });
    if (!s?.isFile()) continue;
    if (part) {
      if (now - s.mtimeMs > PART_MAX_AGE_MS) await remove(folder, name, s.size, result);
      continue;
    }
    entries.push({ name, size: s.size, usedAt: s.mtimeMs, inUse: inUse.has(entry![1]!) });
  }
  const kept = [];
  for (const e of entries) {
    if (!e.inUse && now - e.usedAt > maxAgeMs) await remove(folder, e.name, e.size, result);
    else kept.push(e);
  }
  let total = kept.reduce((n, e) => n + e.size, 0);
  // Over the bound: used longest ago first; an entry in use stays even if the bound is not reached.
  for (const e of kept.filter((k) => !k.inUse).sort((a, b) => a.usedAt - b.usedAt || a.name.localeCompare(b.name))) {
    if (total <= maxBytes) break;
    await remove(folder, e.name, e.size, result);
    total -= e.size;
  }
  result.keptBytes = total;
  return result;
}

async function remove(folder: string, name: string, size: number, result: ThumbnailPruneResult): Promise<void> {
  await rm(join(folder, name), { force: true });
  result.removed.push(name);
  result.freedBytes += size;
}
