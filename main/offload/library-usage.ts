import { stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { QueueDatabase } from '../queue/db.js';
import { keptCopyPaths } from '../queue/reader.js';

/** What the library folder holds of this app's imports: copies still on disk and their bytes. */
export interface LibraryUsage {
  bytes: number;
  copies: number;
}

/**
 * The library's use (shown in Settings): the verified copies the queue's offload
 * record (migration 8) lists under `library` and the retention sweep has not removed, counted
 * only when still on disk (a copy deleted by hand is not counted), with their sizes in bytes as
 * the disk gives them. Reads only; never throws for a missing file.
 */
export async function libraryUsage(db: QueueDatabase, library: string): Promise<LibraryUsage> {
  const root = resolve(library);
  let bytes = 0;
  let copies = 0;
  for (const copy_path of keptCopyPaths(db)) {
    if (!copy_path.startsWith(root + sep)) continue;
    const st = await stat(copy_path).catch(() => undefined);
    if (!st?.isFile()) continue;
    bytes += st.size;
    copies++;
  }
  return { bytes, copies };
}
