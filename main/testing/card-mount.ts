import { mkdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect } from 'vitest';
import { writeFakeCard } from '../card/fake-card.js';
import type { QueuedFile } from '../queue/queue.js';
import type { Uploader } from '../service/uploader.js';

/** A fake card under a fake mount folder, for the tests that upload straight from a card and pull it out. */
export interface MountedCard {
  /** The fake mount folder (absolute), as /media/$USER: the uploader's card watch looks there. */
  mount: string;
  /** Where a pulled card is put (absolute, made): not mounted anywhere. */
  aside: string;
  /** The card as writeFakeCard wrote it: its root `mount/<name>` and its recordings. */
  card: ReturnType<typeof writeFakeCard>;
  /** Each recording's bytes as written, by file name. */
  bytes: Map<string, Buffer>;
  /** The uploader's `cards` option: watch `mount` every 50 ms. */
  watch: { mountRoots: string[]; intervalMs: number };
}

/**
 * Writes the fake card `name` (`recordings` recordings, both lenses, of `bytes` bytes each) under
 * `work/<mountName>`, with `work/<asideName>` made for pulling it out. Throws what writeFakeCard throws.
 */
export function cardOnMount(
  work: string,
  mountName: string,
  asideName: string,
  name: string,
  size: { recordings: number; bytes: number },
): MountedCard {
  const mount = join(work, mountName);
  const aside = join(work, asideName);
  mkdirSync(aside, { recursive: true });
  const card = writeFakeCard(join(mount, name), size);
  const bytes = new Map(card.recordings.map((p) => [basename(p), readFileSync(p)]));
  return { mount, aside, card, bytes, watch: { mountRoots: [mount], intervalMs: 50 } };
}

/** Resolves once `u`'s queue holds an ETag for at least `n` parts of `files` (asked every 20 ms, for up to 30 s). */
export async function untilPartsStored(u: Uploader, files: readonly QueuedFile[], n: number): Promise<void> {
  await expect
    .poll(() => files.flatMap((f) => u.queue.parts(f.id)).filter((p) => p.etag).length, {
      timeout: 30_000,
      interval: 20,
    })
    .toBeGreaterThanOrEqual(n);
}
