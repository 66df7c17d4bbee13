import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { contentFingerprint } from '../intake/file-identity.js';
import type { QueueDatabase } from '../queue/db.js';
import type { VerifiedCopyRow } from '../queue/reader.js';
import { newestFileStateAt, verifiedCopiesOfSize } from '../queue/reader.js';
import type { KnownCardSummary } from '../../shared/card-offer.js';

// A card put back is known by what it holds, not by where it is mounted: each recording's file
// is matched against the verified copies the queue's offload record lists (record.ts) by its
// name, size, modification time and the fingerprint of its first and last MiB, read from the
// card and from the copy in the library (docs/decisions/0020-card-known-by-content.md).

/** Where a card file's recording stands in the upload queue: its copy uploaded, queued and not uploaded yet, or not queued at all. */
export type KnownCopyQueue = 'uploaded' | 'queued' | null;

/**
 * A file on a card whose verified copy is in the library already: the card file (`source`,
 * absolute), its copy (absolute), size (bytes) and modification time (ms since 1970), the offload
 * that made the copy (its row id, when it started, ISO 8601, its folder and MHL), and what the
 * queue holds for the copy.
 */
export interface KnownCopy {
  source: string;
  copy: string;
  size: number;
  mtimeMs: number;
  offloadId: number;
  importedAt: string;
  destination: string;
  mhlPath: string | null;
  queue: KnownCopyQueue;
}

/** A card file as the walk lists it: its path, its size (bytes) and its modification time (ms since 1970). */
export interface CardFile {
  path: string;
  size: number;
  mtimeMs: number;
}

type Candidate = VerifiedCopyRow;

/**
 * The card files of `files` whose verified copy is in the library already, by content, keyed by
 * the card file's path. A file matches a copy the offload record lists (offload_files, verified,
 * not removed by the retention sweep) when the names (the last path segment), the sizes and the
 * modification times (whole ms) agree, the copy is still there with that size and time, and the
 * SHA-256 of the size and first and last MiB (main/intake/file-identity.ts contentFingerprint) of
 * the card file equals the copy's. Only files with a candidate are read (2 MiB each, read-only);
 * a new card costs one query per file. The newest matching copy wins. A file that cannot be read
 * is not known (it is then copied, and fails there with its own error). Reads only; throws
 * SqliteError.
 */
export async function findKnownCopies(db: QueueDatabase, files: readonly CardFile[]): Promise<Map<string, KnownCopy>> {
  const known = new Map<string, KnownCopy>();
  for (const f of files) {
    const rows = verifiedCopiesOfSize(db, f.size).filter(
      (r) => basename(r.copy) === basename(f.path) && Math.trunc(r.mtimeMs) === Math.trunc(f.mtimeMs),
    );
    let cardPrint: string | undefined;
    for (const r of rows) {
      if (!copyInPlace(r)) continue;
      try {
        cardPrint ??= await contentFingerprint(f.path, f.size);
        if ((await contentFingerprint(r.copy, r.size)) !== cardPrint) continue;
      } catch {
        continue;
      }
      known.set(f.path, {
        source: f.path,
        copy: r.copy,
        size: r.size,
        mtimeMs: r.mtimeMs,
        offloadId: r.offloadId,
        importedAt: r.importedAt,
        destination: r.destination,
        mhlPath: r.mhlPath,
        queue: queueStateOf(db, r.copy),
      });
      break;
    }
  }
  return known;
}

/** Whether a recorded copy is still in the library with the size and modification time recorded (a copy keeps the card's). */
function copyInPlace(r: Candidate): boolean {
  try {
    const st = statSync(r.copy);
    return st.isFile() && st.size === r.size && Math.trunc(st.mtimeMs) === Math.trunc(r.mtimeMs);
  } catch {
    return false;
  }
}

/**
 * What the queue holds for the library copy at `copy`: `uploaded` when its newest row not
 * cancelled is completed, `queued` when it is there in any other state, null when no row has it.
 */
function queueStateOf(db: QueueDatabase, copy: string): KnownCopyQueue {
  const state = newestFileStateAt(db, copy);
  return state === undefined ? null : state === 'completed' ? 'uploaded' : 'queued';
}

/**
 * What a card put back holds already (shared/card-offer.ts describeKnownCard says it):
 * `recordings` is how many the card holds, `known` the recordings found in the library (each as
 * its files' copies, offloadCard's OffloadResult.alreadyCopied); of those `uploaded` when every
 * file's copy is uploaded, `queued` when every file's copy is queued or uploaded, `copied`
 * otherwise. `importedAt` and `destination` are the newest offload among them (null when none).
 */
export function summarizeKnown(recordings: number, known: readonly (readonly KnownCopy[])[]): KnownCardSummary {
  let uploaded = 0;
  let queued = 0;
  let newest: KnownCopy | undefined;
  for (const copies of known) {
    for (const c of copies) if (!newest || c.importedAt > newest.importedAt) newest = c;
    const state = recordingQueueState(copies);
    if (state === 'uploaded') uploaded++;
    else if (state === 'queued') queued++;
  }
  return {
    recordings,
    known: known.length,
    uploaded,
    queued,
    copied: known.length - uploaded - queued,
    importedAt: newest?.importedAt ?? null,
    destination: newest?.destination ?? null,
  };
}

/** A known recording's place in the queue from its files' copies: uploaded when all are, queued when every file is queued or uploaded, else null. */
export function recordingQueueState(copies: readonly KnownCopy[]): KnownCopyQueue {
  if (copies.every((c) => c.queue === 'uploaded')) return 'uploaded';
  if (copies.every((c) => c.queue !== null)) return 'queued';
  return null;
}
