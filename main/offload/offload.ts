import { mkdir, realpath, stat, statfs } from 'node:fs/promises';
import { DateTime } from 'luxon';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { FileFacts } from '../intake/file-identity.js';
import type { RefusedPath } from '../intake/intake.js';
import { noRecordingsIn } from '../../shared/grouping.js';
import { inspectPaths } from '../intake/intake.js';
import type { AfterWrite } from './copy.js';
import { copyVerified } from './copy.js';
import { CopyRate } from './copy-rate.js';
import { writeMhl } from './mhl.js';
import { describeReportCard, relativeToCard, writeTransferReport } from './transfer-report.js';
import { APP_VERSION } from '../../shared/version.js';
import type { CardFile, KnownCopy } from './known-copies.js';
import { listTree } from '../card/walk.js';

/** One recording of an offload: where it was and where its copy is (absolute), bytes, XXH64, ms since 1970. */
export interface OffloadedFile {
  source: string;
  copy: string;
  size: number;
  mtimeMs: number;
  /** The source's XXH64 (16 hex digits); undefined when it could not be read at all. */
  xxh64?: string;
  verified: boolean;
  /** Copies made: 1, or 2 when the first failed verification. */
  attempts: number;
  /** Why it is not verified, for a person (names the file). */
  error?: string;
  /** Once verified: the copy as stat saw it in place (what a stored part MD5 is tied to). */
  copyFacts?: FileFacts;
  /** When its copy was checked, verified or not (ISO 8601 UTC): the transfer report's "copied at". */
  copiedAt?: string;
}

/** What offloadCard did. Times are ISO 8601 UTC; `bytes` is the recordings' total in bytes. */
export interface OffloadResult {
  card: string;
  cardName: string;
  /** The folder in the library holding this card's copies and its ascmhl/ folder. */
  destination: string;
  startedAt: string;
  finishedAt: string;
  files: OffloadedFile[];
  bytes: number;
  /** How many recordings (captures, as `add` groups the files: both lenses and a CSV are one) the files make. */
  recordings: number;
  /** Every recording copied and read back with the same hash: the card may be removed. */
  verified: boolean;
  mhlPath?: string;
  /** The transfer report beside the MHL (main/offload/transfer-report.ts): an HTML page for a person. */
  reportPath?: string;
  /**
   * With OffloadOptions.wholeCard: every other file of the card (LRV previews, THM thumbnails,
   * MISC/ …), copied after the recordings and checked the same way, in the MHL and the report,
   * never queued for upload. `verified` covers them too. Empty otherwise.
   */
  others: OffloadedFile[];
  /** Bytes of `others`. */
  otherBytes: number;
  /** Files on the card that were not copied (previews, thumbnails, … when not the whole card), with the reason. */
  skipped: RefusedPath[];
  /**
   * With OffloadOptions.knownCopies: the recordings whose every file has a verified copy in the
   * library already (known-copies.ts), each as its files' copies, not copied again. `files`,
   * `bytes` and `recordings` above count only what this offload copied.
   */
  alreadyCopied?: KnownCopy[][];
}

/** An offload as it starts: the card's root (real path), its name, the folder of the copies, when (ISO 8601), and the recordings' files planned and their bytes. */
export interface OffloadStart {
  card: string;
  cardName: string;
  destination: string;
  startedAt: string;
  files: number;
  bytes: number;
}

/**
 * Where an offload is recorded as it goes (main/offload/record.ts OffloadRecorder): `begin` before
 * the first byte is copied, `file` as each file is verified or fails for good, before its
 * recording is handed on (onRecording), `finish` once the MHL is written, `interrupt` when the
 * offload throws after it began. All synchronous, so each step is committed before the work it
 * describes moves on; they should not throw.
 */
export interface OffloadJournal {
  begin(s: OffloadStart): void;
  file(f: OffloadedFile): void;
  finish(r: OffloadResult): void;
  interrupt(): void;
}

/**
 * Progress of an offload, in bytes of the recordings (copy only; the read-back is not counted
 * twice), with the copy's smoothed rate in bytes per second (0 before any byte moved) and the
 * seconds left at that rate (null while unknown), as main/offload/copy-rate.ts measures them.
 */
export interface OffloadProgress {
  bytesDone: number;
  bytesTotal: number;
  file: string;
  bytesPerSecond: number;
  secondsLeft: number | null;
}

/** Options of offloadCard. `library` is the folder copies go under; `afterWrite` is a test seam (copy.ts). */
export interface OffloadOptions {
  library: string;
  onProgress?: (p: OffloadProgress) => void;
  /**
   * Called once per recording (the files `add` groups into one capture: both lenses, a CSV) as
   * soon as all of its files are copied and checked, verified or not, so its upload can start
   * before the rest of the card is copied. Awaited in turn, never two at once.
   */
  onRecording?: (files: OffloadedFile[]) => Promise<void> | void;
  /**
   * Called once, after the free-space check and before the first byte is copied, with the
   * recordings' files in the order they will be copied (paths on the card, sizes in bytes) and the
   * folder the copies go to: what a screen lists as waiting.
   */
  onPlan?: (
    files: readonly { path: string; size: number }[],
    destination: string,
    others: readonly { path: string; size: number }[],
  ) => void;
  /**
   * Copy the whole card: after the recordings, every other file under the card's root (hidden and
   * system folders aside, main/card/walk.ts), with the same verification, so a card said safe to
   * remove may be formatted (docs/decisions/0028-copy-whole-card.md). Those files are never
   * handed to `onRecording`: only recordings are uploaded.
   */
  wholeCard?: boolean;
  /** With `wholeCard`: called as each other file is verified or fails for good (after the journal has it). */
  onOther?: (file: OffloadedFile) => void;
  /**
   * Called as each recording's file is verified or fails for good, after the journal has it and
   * before its recording is handed on: a screen shows a verified lens as kept even when the stop
   * comes before its other lens is checked, as the copy is then on disk.
   */
  onFile?: (file: OffloadedFile) => void;
  /** Records the offload as it goes: its start and each file's check. */
  journal?: OffloadJournal;
  /**
   * Finds the card's files whose verified copy is in the library already, by content
   * (known-copies.ts findKnownCopies; docs/decisions/0020-card-known-by-content.md). A recording whose
   * every file is found is not copied again: `onKnown` gets it, and, when the queue holds none of
   * its copies, `onRecording` gets its existing copies as verified. Without it every recording is
   * copied (what a person who asks for a second copy gets).
   */
  knownCopies?: (files: readonly CardFile[]) => Promise<ReadonlyMap<string, KnownCopy>>;
  /**
   * Called once, before `onPlan`, with the recordings found in the library already (each one's
   * files' copies) and how many recordings the card holds in all; not called when none is known.
   */
  onKnown?: (recordings: readonly KnownCopy[][], total: number) => void;
  now?: () => Date;
  /** The clock the copy's rate is measured with, in ms (performance.now by default; tests step it). */
  clock?: () => number;
  afterWrite?: AfterWrite;
  tool?: { name: string; version: string };
  /** Free bytes on the disk holding a folder; fs.statfs by default (tests give a small disk). */
  freeBytes?: (folder: string) => Promise<number>;
  /**
   * Aborting it stops the offload within a chunk (copy.ts): the copies in progress are removed
   * (no `.partial` is left), the verified ones stay where they are and recorded, the journal says
   * the offload was interrupted, and offloadCard rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

/** Free bytes for an unprivileged user on the disk that holds `folder` (fs.statfs). */
const statfsFree = async (folder: string) => {
  const fs = await statfs(folder);
  return fs.bavail * fs.bsize;
};

/** Thrown before anything is copied when the library's disk has less free space than the recordings need. */
export class NotEnoughSpaceError extends Error {
  override readonly name = 'NotEnoughSpaceError';
  constructor(
    readonly library: string,
    readonly needed: number,
    readonly free: number,
  ) {
    super(
      `Not enough free space in ${library}: the recordings need ${needed} bytes, ${free} are free. Free some space or choose another library folder (--library).`,
    );
  }
}

/** Kept free beyond the recordings: the MHL, the file system's own blocks, and the queue's database. */
const MARGIN_BYTES = 64 * 1024 * 1024;

/**
 * The offload of a card whose every recording is in the library already: nothing copied or
 * written, the card was safe to remove when those copies verified; the recordings no queue row
 * holds yet are handed on from their existing copies. Answers the result naming the newest copy.
 */
async function allKnown(
  opts: OffloadOptions,
  root: string,
  cardName: string,
  started: Date,
  knownRecordings: KnownCopy[][],
  skipped: OffloadResult['skipped'],
): Promise<OffloadResult> {
  for (const r of knownRecordings) if (r.some((c) => c.queue === null)) await opts.onRecording?.(r.map(asOffloaded));
  const newest = knownRecordings.flat().reduce((a, b) => (b.importedAt > a.importedAt ? b : a));
  const at = started.toISOString();
  return {
    card: root,
    cardName,
    destination: newest.destination,
    startedAt: at,
    finishedAt: at,
    files: [],
    bytes: 0,
    recordings: 0,
    verified: true,
    ...(newest.mhlPath ? { mhlPath: newest.mhlPath } : {}),
    others: [],
    otherBytes: 0,
    skipped,
  };
}

/**
 * Copies `entry.source` to `entry.copy` with verification (copyVerified), once more when the copy
 * read back differs or the copy fails, and fills `entry` in: its facts, `verified`, the attempts
 * made and the error that names the file. `onBytes` gets each chunk's bytes copied. Throws only the
 * stop (the signal's reason): the file is then neither copied nor failed.
 */
async function copyTwice(entry: OffloadedFile, opts: OffloadOptions, onBytes: (n: number) => void): Promise<void> {
  const size = entry.size;
  for (let attempt = 1; attempt <= 2 && !entry.verified; attempt++) {
    entry.attempts = attempt;
    try {
      const r = await copyVerified(entry.source, entry.copy, {
        onBytes,
        ...(opts.afterWrite ? { afterWrite: opts.afterWrite } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      Object.assign(entry, { size: r.size, mtimeMs: r.mtimeMs, xxh64: r.xxh64, verified: r.verified });
      if (r.copyFacts) entry.copyFacts = r.copyFacts;
      if (!r.verified)
        entry.error = `${entry.source}: the copy read back differs from the card (XXH64 ${r.xxh64} on the card, ${r.copyXxh64} in the copy${r.size !== size ? `; ${r.size} of ${size} bytes` : ''}).`;
      else delete entry.error;
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      entry.error = `${entry.source}: ${(err as NodeJS.ErrnoException).code ?? 'error'} while copying (${(err as Error).message}).`;
    }
  }
}

/** What copyAll copies: the card's files (the recordings' first), where to, and how they group. */
interface CopyPlan {
  /** The card's root and the offload's folder (absolute paths). */
  root: string;
  destination: string;
  /** The files to copy: the recordings' files first (`recordingFiles` of them), then the other files. */
  all: readonly CardFile[];
  recordingFiles: number;
  /** The recordings to copy, each with its files (both lenses, a CSV). */
  groups: readonly { files: readonly CardFile[] }[];
  /** Bytes of `all`. */
  totalBytes: number;
  /** Recordings found in the library already that no queue row holds: handed on first, from their copies. */
  handOnFirst: readonly KnownCopy[][];
}

/**
 * Copies the plan's files two at a time (while one is flushed and read back from the library's
 * disk, the next is read from the card, so neither disk waits for the other), the other files only
 * once every recording's file is checked, so the last recordings' placement waits for no preview
 * (docs/decisions/0028-copy-whole-card.md). Each file is recorded (journal), then told (onFile,
 * onOther); each recording is handed on (onRecording) as soon as all its files are checked, in turn.
 * Answers every file's entry in the plan's order. Throws the stop, or a hand-off's failure, only
 * once both lanes ended and every hand-off under way settled.
 */
async function copyAll(plan: CopyPlan, opts: OffloadOptions): Promise<OffloadedFile[]> {
  const { root, destination, all, recordingFiles, groups, totalBytes } = plan;
  const files: OffloadedFile[] = new Array(all.length);
  let recordings: Promise<void> = Promise.resolve();
  // Each hand-off in turn after the last. The chain is marked handled as it grows: it is judged
  // only once both lanes end (below), and a hand-off that fails while they still copy (a refused
  // registration, the stop) must not reach Node as an unhandled rejection, which ends the process.
  const handOn = (files: OffloadedFile[]) => {
    recordings = recordings.then(() => opts.onRecording!(files));
    recordings.catch(() => {});
  };
  if (opts.onRecording) for (const r of plan.handOnFirst) handOn(r.map(asOffloaded));
  let copied = 0;
  const rate = new CopyRate(opts.clock);
  // Which recording each file belongs to, so a recording is handed on once all its files are done.
  const groupOf = new Map(groups.flatMap((g) => g.files.map((f) => [f.path, g.files.map((x) => x.path)] as const)));
  const byPath = new Map<string, OffloadedFile>();
  const copyOne = async (i: number) => {
    const f = all[i]!;
    const rel = relative(root, f.path);
    // A link on the card to a file elsewhere keeps only its name.
    const copy = join(destination, rel.startsWith('..') || isAbsolute(rel) ? basename(f.path) : rel);
    const entry: OffloadedFile = {
      source: f.path,
      copy,
      size: f.size,
      mtimeMs: f.mtimeMs,
      verified: false,
      attempts: 0,
    };
    await copyTwice(entry, opts, (n) => {
      // A second attempt counts again: progress is bytes copied, so it may pass the total briefly.
      copied = Math.min(totalBytes, copied + n);
      opts.onProgress?.({
        bytesDone: copied,
        bytesTotal: totalBytes,
        file: f.path,
        ...rate.sample(copied, totalBytes),
      });
    });
    entry.copiedAt = (opts.now ?? (() => new Date()))().toISOString();
    files[i] = entry;
    // Recorded before the recording is handed on: a held file is moved to a copy the queue knows.
    opts.journal?.file(entry);
    if (i >= recordingFiles) return opts.onOther?.(entry);
    opts.onFile?.(entry);
    const group = groupOf.get(f.path)!;
    const whole = group.every((p) => byPath.has(p) || p === f.path);
    byPath.set(f.path, entry);
    if (whole && opts.onRecording) handOn(group.map((p) => byPath.get(p)!));
  };
  let next = 0;
  let recordingsLeft = recordingFiles;
  let recordingsChecked: () => void = () => {};
  const allRecordingsChecked = new Promise<void>((r) => (recordingsChecked = r));
  if (recordingsLeft === 0) recordingsChecked();
  const lane = async () => {
    while (next < all.length) {
      opts.signal?.throwIfAborted();
      const i = next++;
      if (i >= recordingFiles) {
        await allRecordingsChecked;
        opts.signal?.throwIfAborted();
      }
      try {
        await copyOne(i);
      } finally {
        if (i < recordingFiles && --recordingsLeft === 0) recordingsChecked();
      }
    }
  };
  // Both lanes end before the offload answers: a stopped one has removed its .partial by then.
  const lanes = await Promise.allSettled([lane(), lane()]);
  // The recordings handed on are waited for even when a lane was stopped: a registration on the
  // wire is answered and recorded (docs/cli.md "Stopped by a signal"), and a hand-off that
  // failed is this rejection's.
  const handedOn = await Promise.allSettled([recordings]);
  const failed = [...lanes, ...handedOn].find((l) => l.status === 'rejected');
  if (failed) throw failed.reason;
  return files;
}

/**
 * Offloads a card: finds its recordings however deep (main/card/walk.ts),
 * checks the library's free space (fs.statfs) before copying anything, copies each recording with
 * copyVerified (XXH64 while reading, read back from the copy), copies a file that fails once more,
 * and writes an ASC MHL beside the copies. The card is only read. Copies keep the card's folder
 * layout under `<library>/<card name>_<YYYY-MM-DD_HHMMSS>/`. With `journal` the offload is recorded as
 * it goes (its start, each file as it is checked, its end or its interruption), so a
 * stop mid-way leaves the copies verified so far known. Files that fail are named in the result,
 * never thrown; throws NotEnoughSpaceError, Error when the card holds no recording, and the file system's errors for the library itself.
 */
export async function offloadCard(card: string, opts: OffloadOptions): Promise<OffloadResult> {
  const started = (opts.now ?? (() => new Date()))();
  const root = await realpath(resolve(card));
  const inspected = await inspectPaths([root], opts.signal);
  const refused = inspected.refused;
  if (inspected.groups.length === 0) throw new Error(noRecordingsIn(card));
  // A recording already in the library is not copied again: only its every file found counts.
  const known = opts.knownCopies
    ? await opts.knownCopies(inspected.groups.flatMap((g) => g.files))
    : new Map<string, KnownCopy>();
  const isKnown = (g: (typeof inspected.groups)[number]) => g.files.every((f) => known.has(f.path));
  const knownRecordings = inspected.groups.filter(isKnown).map((g) => g.files.map((f) => known.get(f.path)!));
  const groups = inspected.groups.filter((g) => !isKnown(g));
  const already = opts.knownCopies ? { alreadyCopied: knownRecordings } : {};
  if (knownRecordings.length) opts.onKnown?.(knownRecordings, inspected.groups.length);
  const sources = groups.flatMap((g) => g.files).sort((a, b) => a.path.localeCompare(b.path));
  const cardName = basename(root) || 'card';
  // Every recording is in the library already: no offload, nothing written.
  if (sources.length === 0)
    return { ...(await allKnown(opts, root, cardName, started, knownRecordings, refused)), ...already };
  const bytes = sources.reduce((n, f) => n + f.size, 0);
  // The rest of the card comes after the recordings, so placement can start at once; a known
  // recording's files are not among them (their copies are in the library already).
  const recordingPaths = new Set(inspected.groups.flatMap((g) => g.files.map((f) => f.path)));
  const otherFiles = opts.wholeCard ? await otherFilesOf(root, recordingPaths) : [];
  // An other file copied and verified by an earlier import of this card is not copied again either.
  const knownOthers = opts.knownCopies && otherFiles.length ? await opts.knownCopies(otherFiles) : new Map();
  const otherSources = otherFiles.filter((f) => !knownOthers.has(f.path));
  const otherBytes = otherSources.reduce((n, f) => n + f.size, 0);
  const all = [...sources, ...otherSources];
  const library = resolve(opts.library);
  await mkdir(library, { recursive: true });
  const free = await (opts.freeBytes ?? statfsFree)(library);
  if (free < bytes + otherBytes + MARGIN_BYTES) throw new NotEnoughSpaceError(library, bytes + otherBytes, free);
  // What stays on the card alone: a copied file (or a folder of them) is no longer "not copied".
  const copiedOther = (p: string) => otherFiles.some((o) => o.path === p || o.path.startsWith(p + sep));
  const skipped = refused.filter((r) => !copiedOther(r.path));
  // The folder is named in the operator's local time with its offset (X4_CARD_2026-11-27_081530+0100),
  // as they remember the day; the offset keeps two names an hour apart across a clock change apart.
  const stamp = DateTime.fromJSDate(started).toFormat('yyyy-MM-dd_HHmmssZZZ');
  const destination = join(library, `${cardName}_${stamp}`);
  opts.journal?.begin({
    card: root,
    cardName,
    destination,
    startedAt: started.toISOString(),
    files: all.length,
    bytes: bytes + otherBytes,
  });
  try {
    opts.onPlan?.(
      sources.map((f) => ({ path: f.path, size: f.size })),
      destination,
      otherSources.map((f) => ({ path: f.path, size: f.size })),
    );
    const files = await copyAll(
      {
        root,
        destination,
        all,
        recordingFiles: sources.length,
        groups,
        totalBytes: bytes + otherBytes,
        handOnFirst: knownRecordings.filter((r) => r.some((c) => c.queue === null)),
      },
      opts,
    );
    const result = {
      ...(await finishOffload(opts, {
        root,
        cardName,
        destination,
        started,
        files: files.slice(0, sources.length),
        bytes,
        others: files.slice(sources.length),
        otherBytes,
        recordings: groups.length,
        skipped,
      })),
      ...already,
    };
    opts.journal?.finish(result);
    return result;
  } catch (err) {
    // Its verified copies stay recorded; the offload says it did not finish.
    opts.journal?.interrupt();
    throw err;
  }
}

/** A known recording's file as an offloaded one: its existing copy, verified when that copy was made. */
const asOffloaded = (c: KnownCopy): OffloadedFile => ({
  source: c.source,
  copy: c.copy,
  size: c.size,
  mtimeMs: c.mtimeMs,
  verified: true,
  attempts: 0,
});

/** Writes the offload's ASC MHL beside its copies and its transfer report beside the MHL, and answers its result (what offloadCard answers). */
async function finishOffload(
  opts: OffloadOptions,
  o: {
    root: string;
    cardName: string;
    destination: string;
    started: Date;
    files: OffloadedFile[];
    bytes: number;
    others: OffloadedFile[];
    otherBytes: number;
    recordings: number;
    skipped: RefusedPath[];
  },
): Promise<OffloadResult> {
  const { root, cardName, destination, started, bytes, others, otherBytes } = o;
  const files = [...o.files, ...others];
  const finishedAt = (opts.now ?? (() => new Date()))().toISOString();
  const tool = opts.tool ?? { name: 'capture-uploader', version: APP_VERSION };
  const mhlPath = await writeMhl(
    destination,
    files.map((f) => ({
      path: relative(destination, f.copy).split(sep).join('/'),
      size: f.size,
      mtimeMs: f.mtimeMs,
      ...(f.xxh64 ? { xxh64: f.xxh64 } : {}),
      hashedAt: finishedAt,
      verified: f.verified,
    })),
    { startedAt: started.toISOString(), createdAt: finishedAt },
    tool,
  );
  const reportPath = await writeTransferReport(mhlPath, {
    card: await describeReportCard(root),
    destination,
    mhlName: basename(mhlPath),
    startedAt: started.toISOString(),
    finishedAt,
    files: files.map((f) => ({
      path: relativeToCard(root, f.source),
      size: f.size,
      verified: f.verified,
      ...(f.xxh64 ? { xxh64: f.xxh64 } : {}),
      ...(f.copiedAt ? { copiedAt: f.copiedAt } : {}),
      ...(f.error ? { error: f.error } : {}),
    })),
    recordings: o.recordings,
    others: others.length,
    skipped: o.skipped,
    tool,
  });
  return {
    card: root,
    cardName,
    destination,
    startedAt: started.toISOString(),
    finishedAt,
    files: o.files,
    bytes,
    others,
    otherBytes,
    recordings: o.recordings,
    verified: files.every((f) => f.verified),
    mhlPath,
    reportPath,
    skipped: o.skipped,
  };
}

/**
 * The card's files that are not recordings' files (`recordings`, paths as inspectPaths gives them):
 * every regular file under `root` (main/card/walk.ts listTree: hidden and system folders are not
 * entered), in name order, with its size in bytes and modification time in ms. A link that leads
 * nowhere, or anything that is not a regular file, is left out (it stays in `skipped`).
 */
async function otherFilesOf(root: string, recordings: ReadonlySet<string>): Promise<CardFile[]> {
  const { files } = await listTree(root);
  const out: CardFile[] = [];
  for (const path of files) {
    if (recordings.has(path)) continue;
    const st = await stat(path).catch(() => undefined);
    if (st?.isFile()) out.push({ path, size: st.size, mtimeMs: st.mtimeMs });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
