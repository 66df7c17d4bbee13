import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { CliKit, StoredObject } from './kit.js';

/**
 * Cards and recordings of random bytes for the Node end-to-end tests, a change of a recording's
 * metadata alone, and what storage holds of them read back. Test code only; every file is written under the folder a test gives.
 */

/** A card folder the test wrote, and each recording's bytes by file name. */
export interface RandomCard {
  /** The folder (absolute). */
  card: string;
  files: Map<string, Buffer>;
}

/**
 * A fresh folder `<parent>/<prefix>XXXXXX` holding, for each `[name, size]` (size in bytes), a
 * file `name` of that many random bytes.
 */
export function randomCard(parent: string, prefix: string, sizes: Iterable<readonly [string, number]>): RandomCard {
  const card = mkdtempSync(join(parent, prefix));
  const files = new Map<string, Buffer>();
  for (const [name, size] of sizes) {
    const bytes = randomBytes(size);
    writeFileSync(join(card, name), bytes);
    files.set(name, bytes);
  }
  return { card, files };
}

/** `n` recordings of `size` random bytes each, `<dir>/<name>-1.mp4` … `<name>-n.mp4`; returns their paths. */
export function randomRecordings(dir: string, name: string, n: number, size: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const path = join(dir, `${name}-${i + 1}.mp4`);
    writeFileSync(path, randomBytes(size));
    return path;
  });
}

/**
 * What storage holds for the upload whose object key ends with `name` (the first such upload),
 * read through the S3 API: its bytes and SHA-256. Throws when storage has no such upload.
 */
export async function storedByName(kit: Pick<CliKit, 'svc' | 'object'>, name: string): Promise<StoredObject> {
  const upload = Object.values(kit.svc.store.state.uploads).find((u) => u.key.endsWith(name));
  if (!upload) throw new Error(`storage has no upload of ${name}`);
  return kit.object(upload.key);
}

/**
 * Changes a recording's metadata and not one of its bytes, as a backup tool or a file manager may
 * while it uploads: a chmod to 0600 and back to 0644, and a hard link to it at `link` (absolute).
 * Expects its ctime (ns) to have moved, so that a check on ctime alone would see a change.
 */
export function changeMetadataOnly(path: string, link: string): void {
  const ctimeBefore = statSync(path, { bigint: true }).ctimeNs;
  chmodSync(path, 0o600);
  chmodSync(path, 0o644);
  linkSync(path, link);
  expect(statSync(path, { bigint: true }).ctimeNs).not.toBe(ctimeBefore);
}
