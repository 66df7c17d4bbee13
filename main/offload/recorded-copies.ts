import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CopyOf, CopyRoute } from '../queue/copy-holds.js';
import type { QueueDatabase } from '../queue/db.js';
import { verifiedCopiesOf } from '../queue/reader.js';

// After a restart: the copies an earlier run verified are known only from the queue's
// offload record (offload_files, written as each file is checked; record.ts), not from the
// session's imports (main/service/imported-copies.ts), which died with that run.

/**
 * The ways the offload record may spell the card file at `path` (absolute): as given, and with its
 * nearest existing folder resolved (offloadCard records real paths, and the card itself may be
 * gone by now, pulled or removed once its copies verified).
 */
function spellings(path: string): string[] {
  const out = [path];
  let dir = dirname(path);
  let rest = basename(path);
  while (!existsSync(dir) && dirname(dir) !== dir) {
    rest = join(basename(dir), rest);
    dir = dirname(dir);
  }
  try {
    const real = join(realpathSync(dir), rest);
    if (real !== path) out.push(real);
  } catch {
    // Nothing of it exists any more: the path as given is all there is.
  }
  return out;
}

/**
 * The verified copy of the card file at `path` (absolute) that the queue's offload record lists,
 * newest first, not removed by the retention sweep, and still in the library with the size and
 * modification time recorded (a copy keeps the card's); with the copy's identity as stat gives
 * it now (main/intake/file-identity.ts FileFacts). Undefined when there is none. Reads only.
 */
function recordedCopy(db: QueueDatabase, path: string): CopyOf | undefined {
  for (const spelling of spellings(path)) {
    for (const r of verifiedCopiesOf(db, spelling)) {
      let st;
      try {
        st = statSync(r.copy, { bigint: true });
      } catch {
        continue; // removed by hand: not a copy any more
      }
      if (!st.isFile() || Number(st.size) !== r.size || Math.trunc(Number(st.mtimeMs)) !== Math.trunc(r.mtimeMs))
        continue;
      return {
        path: r.copy,
        facts: {
          size: Number(st.size),
          mtimeMs: Number(st.mtimeMs),
          dev: String(st.dev),
          ino: String(st.ino),
          ctimeNs: String(st.ctimeNs),
        },
      };
    }
  }
  return undefined;
}

/**
 * `live` (the imports running in this process, if any) with, for a file none of them copied, the
 * verified copies recorded in the queue by earlier runs (recordedCopy): what the holds of an
 * earlier run are settled against when the queue opens (main/queue/copy-holds.ts settleCopyHolds),
 * so a file whose copy verified before a crash uploads from that copy, not from the card.
 */
export function withRecordedCopies(db: QueueDatabase, live: CopyRoute | undefined): CopyRoute {
  return {
    copying: (p) => live?.copying(p) ?? false,
    copied: (p) => live?.copied(p) ?? recordedCopy(db, p),
    runningOffloads: () => live?.runningOffloads?.() ?? [],
  };
}
