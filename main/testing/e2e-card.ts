import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliKit, StoredObject } from './kit.js';

/**
 * Cards and recordings of random bytes for the Node end-to-end tests, and what storage holds of
 * them read back. Test code only; every file is written under the folder a test gives.
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
