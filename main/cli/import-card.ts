import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { formatBytes, formatCopyProgress } from '../../shared/format.js';
import type { QueueDatabase } from '../queue/db.js';
import { openQueueDatabase } from '../queue/db.js';
import { lockQueue } from '../queue/lock.js';
import type { OffloadedFile, OffloadProgress, OffloadResult } from '../offload/offload.js';
import { offloadCard } from '../offload/offload.js';
import { OffloadRecorder } from '../offload/record.js';
import { findKnownCopies, summarizeKnown } from '../offload/known-copies.js';
import { describeKnownCard } from '../../shared/card-offer.js';
import { removeFinishedCopies } from '../offload/retention.js';
import { printable, printableJson } from './printable.js';
import { cardRootOf } from '../card/card-root.js';
import { ejectCard } from '../card/eject.js';
import { setAsideMessage } from './local-faults.js';
import { defaultLibraryFolder } from '../settings/library-settings.js';
import { reasonOf } from '../api/errors.js';
import { SIGNAL_EXIT } from './exit-status.js';
import type { StopWatch } from './stop-signals.js';

// `capture-uploader import <card>`: a headless ingest station's offload. The
// copying and its record are main/offload's; this file shows progress and says what follows.

/** The library folder when none is given: CAPTURE_LIBRARY, else "Capture Uploader" in the user's videos folder, as the app's default (main/settings/library-settings.ts). */
export function defaultLibrary(): string {
  return process.env.CAPTURE_LIBRARY ?? defaultLibraryFolder();
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
/** "6 files of 3 recordings": the files copied and the recordings (captures) they make. */
const whatWasCopied = (r: OffloadResult) => `${plural(r.files.length, 'file')} of ${plural(r.recordings, 'recording')}`;
/** The rest of a card copied whole, after the recordings: " and 7 other files (1.2 MiB; the whole card)", or nothing. */
const andOthers = (r: OffloadResult) =>
  r.others.length ? ` and ${plural(r.others.length, 'other file')} (${formatBytes(r.otherBytes)}; the whole card)` : '';

/**
 * A progress display: a bar redrawn in place on a terminal, a line per tenth otherwise ("copying:
 * 30% (412 MiB of 1.2 GiB · 87.0 MiB/s · about 9 s left)"), nothing with --json; both with the
 * copy's rate and time left (main/offload/copy-rate.ts).
 */
function progressPrinter(out: NodeJS.WriteStream, json: boolean | undefined): (p: OffloadProgress) => void {
  let lastTenth = -1;
  return (p) => {
    if (json) return;
    const ratio = p.bytesTotal ? p.bytesDone / p.bytesTotal : 1;
    const words = formatCopyProgress(p.bytesDone, p.bytesTotal, p.bytesPerSecond, p.secondsLeft);
    if (out.isTTY) {
      const width = 30;
      const filled = Math.round(ratio * width);
      // Cleared to the end of the line: the words get shorter as the time left does.
      out.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% ${words}\x1b[K`);
    } else if (Math.floor(ratio * 10) > lastTenth) {
      lastTenth = Math.floor(ratio * 10);
      out.write(`copying: ${lastTenth * 10}% (${words})\n`);
    }
  };
}

/**
 * Opens the queue at `dataDir`/queue.db for an import, first taking its lock when `lock` (one
 * writer at a time, main/queue/lock.ts: a drain started meanwhile stops with "in use" instead of
 * writing beside it). Answers the database and how to let the lock go. Throws QueueInUseError,
 * what the queue's open throws, and Error naming where a damaged queue was moved (the lock let go).
 */
function openImportQueue(dataDir: string, lock: boolean): { db: QueueDatabase; unlock: () => void } {
  const usedBefore = existsSync(join(dataDir, 'queue.lock'));
  const unlock = lock ? lockQueue(dataDir) : () => undefined;
  let opened;
  try {
    opened = openQueueDatabase(join(dataDir, 'queue.db'), undefined, { usedBefore });
  } catch (err) {
    unlock();
    throw err;
  }
  const { db, setAside, damage } = opened;
  if (setAside) {
    // As every command that opens the queue (commands.ts withSession): stop, say it, exit 2.
    db.close();
    unlock();
    throw new Error(
      `The upload queue was damaged (${damage}); it was moved to ${setAside} and a new, empty queue was started. ${setAsideMessage(setAside)}`,
    );
  }
  return { db, unlock };
}

/** A copied file as `import --json` lists it: paths, size in bytes, XXH64, verified or the error that names it. */
const jsonFile = (f: OffloadedFile) => ({
  source: f.source,
  copy: f.copy,
  size: f.size,
  xxh64: f.xxh64 ?? null,
  verified: f.verified,
  error: f.error ?? null,
});

/** `import --json`'s one `{ type: 'imported', … }` line for the offload `id` (null when the queue refused its record). */
function printImportedJson(result: OffloadResult, id: number | undefined): void {
  const already = result.alreadyCopied ?? [];
  const summary = summarizeKnown(result.recordings + already.length, already);
  process.stdout.write(
    `${printableJson({
      type: 'imported',
      offload: id ?? null,
      card: result.card,
      destination: result.destination,
      mhl: result.mhlPath ?? null,
      report: result.reportPath ?? null,
      verified: result.verified,
      files: result.files.map(jsonFile),
      // The rest of the card copied whole (never queued); empty with --recordings-only.
      others: result.others.map(jsonFile),
      alreadyImported: {
        ...summary,
        files: already.flat().map((c) => ({ source: c.source, copy: c.copy, size: c.size, queue: c.queue })),
      },
    })}\n`,
  );
}

/** `import`'s closing lines: "Card safe to remove" with what was copied and where, or "Keep the card" naming each file not verified. */
function printImportedText(result: OffloadResult): void {
  // A file of the rest of the card that did not verify keeps the card as a recording's does.
  const bad = [...result.files, ...result.others].filter((f) => !f.verified);
  const already = result.alreadyCopied ?? [];
  const summary = summarizeKnown(result.recordings + already.length, already);
  if (already.length) process.stdout.write(`${printable(describeKnownCard(summary))}\n`);
  if (result.files.length === 0) {
    process.stdout.write(
      `Card safe to remove: nothing new on it (no file copied); every recording has a verified copy in the library.\n`,
    );
  } else if (bad.length === 0) {
    process.stdout.write(
      `Card safe to remove: ${whatWasCopied(result)} (${formatBytes(result.bytes)})${andOthers(result)} copied and verified in ${printable(result.destination)}\n`,
    );
    process.stdout.write(`ASC MHL: ${printable(relative(result.destination, result.mhlPath!))}\n`);
    if (result.reportPath)
      process.stdout.write(`Transfer report: ${printable(relative(result.destination, result.reportPath))}\n`);
  } else {
    process.stdout.write(
      `Keep the card: ${bad.length} of ${result.files.length + result.others.length} files were not verified, even copied twice:\n`,
    );
    for (const f of bad) process.stdout.write(`  ${printable(f.error ?? f.source)}\n`);
    if (result.reportPath) process.stdout.write(`Transfer report: ${printable(result.reportPath)}\n`);
  }
}

/**
 * Copies a card to the library with verification, records the offload in the queue at
 * `dataDir`/queue.db (CAPTURE_DATA_DIR, default ~/.capture-uploader), holding the queue's lock
 * for the whole run with `lock` (no session of this process holds it), prints "Card safe to remove" when every recording verified, or names the
 * files that did not. With `onRecording` the copies are queued for upload as each recording
 * verifies; their part MD5s are left to the upload, which computes each as it reads the part.
 * The offload is recorded as it goes (main/offload/record.ts OffloadRecorder): its row when it
 * starts, each file's as it is checked, the end. Answers the offload and its row id (undefined
 * when the queue refused the record: said on stderr); throws on a full disk, an empty card, or a
 * damaged queue (moved aside, main/queue/db.ts queueDamage: the message names where).
 */
export async function importCard(
  card: string,
  o: {
    library?: string;
    dataDir?: string;
    json?: boolean;
    lock?: boolean;
    copyAgain?: boolean;
    /** Copy only the recordings (`--recordings-only`); by default the whole card is copied. */
    recordingsOnly?: boolean;
    onRecording?: (files: OffloadedFile[]) => Promise<void>;
    /** Aborted by a stop signal: the copy stops within a chunk (main/offload/offload.ts), said in one line, and this rejects. */
    signal?: AbortSignal;
  },
): Promise<{ result: OffloadResult; id: number | undefined }> {
  const library = resolve(o.library ?? defaultLibrary());
  const dataDir = resolve(o.dataDir ?? process.env.CAPTURE_DATA_DIR ?? join(homedir(), '.capture-uploader'));
  mkdirSync(dataDir, { recursive: true });
  const { db, unlock } = openImportQueue(dataDir, o.lock === true);
  let id: number | undefined;
  let result: OffloadResult;
  // Recorded as it goes: a Ctrl-C or a crash leaves the verified copies known to the
  // retention sweep; the offload is said interrupted at the next open of the queue.
  const journal = new OffloadRecorder(
    () => db,
    (m) => process.stderr.write(`${printable(m)}\n`),
  );
  try {
    if (!o.json) process.stdout.write(`Importing ${printable(resolve(card))} into ${printable(library)}\n`);
    // No part MD5s in the copy: the upload computes each part's as it reads it for sending, so
    // "safe to remove" waits for no hashing the copy does not need (docs/decisions/0030-part-md5-at-upload.md).
    const upload = o.onRecording ? { onRecording: o.onRecording } : undefined;
    // A card put back is known by its content: its recordings already in the library are not
    // copied again unless the person asks (--copy-again; docs/decisions/0020-card-known-by-content.md).
    const known = o.copyAgain
      ? {}
      : { knownCopies: (files: Parameters<typeof findKnownCopies>[1]) => findKnownCopies(db, files) };
    try {
      result = await offloadCard(card, {
        library,
        journal,
        onProgress: progressPrinter(process.stdout, o.json),
        // The whole card unless asked otherwise: "safe to remove" then means it may be formatted.
        wholeCard: !o.recordingsOnly,
        ...known,
        ...upload,
        ...(o.signal ? { signal: o.signal } : {}),
      });
    } catch (err) {
      if (o.signal?.aborted)
        process.stderr.write(
          `${process.stdout.isTTY && !o.json ? '\n' : ''}${reasonOf(o.signal.reason)}: the copies the import verified so far stay in the library and are recorded, half-written ones were removed. Keep the card: run import again to copy the rest.\n`,
        );
      throw err;
    }
    if (!o.json && process.stdout.isTTY) process.stdout.write('\n');
    id = journal.id;
  } finally {
    db.close();
    unlock();
  }
  if (o.json) printImportedJson(result, id);
  else printImportedText(result);
  return { result, id };
}

/**
 * Without placement options: says what waits to be placed, and the command that queues it: this
 * offload's copies, and the copies of recordings imported before and never queued.
 */
export function waitingForPlacement(result: OffloadResult): void {
  if (result.files.length)
    process.stdout.write(
      `Waiting for placement: ${whatWasCopied(result)}. Queue them with:\n  capture-uploader add --structure ID --type interior|exterior ${printable(result.destination)}\n`,
    );
  const unplaced = (result.alreadyCopied ?? []).filter((r) => r.some((c) => c.queue === null));
  if (unplaced.length) {
    const folders = [...new Set(unplaced.flat().map((c) => c.destination))];
    process.stdout.write(
      `Waiting for placement from an earlier import: ${plural(unplaced.length, 'recording')}. Queue them with:\n  capture-uploader add --structure ID --type interior|exterior ${folders.map(printable).join(' ')}\n`,
    );
  }
}

/**
 * With placement options: queues the verified copies of one recording as `add` does (commands.ts addFiles) and
 * answers its exit status; files that did not verify are left out, so nothing is uploaded from a
 * bad copy. Answers 1 when no copy verified.
 */
export async function queueCopies(
  c: typeof import('./commands.js'),
  s: import('./commands.js').Session,
  files: readonly OffloadedFile[],
  o: Pick<ImportFlags, 'structure' | 'type' | 'design' | 'capturedAt'>,
  json: boolean | undefined,
): Promise<number> {
  // Stopped by a signal: a recording verified after it waits in the library for the next import or add.
  if (s.stop.signal) return 0;
  const copies = files.filter((f) => f.verified).map((f) => f.copy);
  if (copies.length === 0) return 1;
  return c.addFiles(s, copies, o, json);
}

/**
 * Removes the library's copies whose captures completed more than `keepDays` days ago
 * (CAPTURE_KEEP_COPIES_DAYS, default 7; main/offload/retention.ts) and says how many went.
 */
export async function sweepLibrary(
  db: QueueDatabase,
  keepDays: number | undefined,
  json: boolean | undefined,
): Promise<void> {
  const fromEnv = Number(process.env.CAPTURE_KEEP_COPIES_DAYS);
  const days =
    keepDays ?? (process.env.CAPTURE_KEEP_COPIES_DAYS && Number.isFinite(fromEnv) && fromEnv >= 0 ? fromEnv : 7);
  const removed = await removeFinishedCopies(db, Date.now(), days * 24 * 60 * 60 * 1000);
  if (removed.length && !json)
    process.stdout.write(
      `Removed ${removed.length} imported cop${removed.length === 1 ? 'y' : 'ies'} from the library: their captures completed more than ${days} day${days === 1 ? '' : 's'} ago.\n`,
    );
}

/** The options of `import`: the library folder and, to queue the copies, the placement options of `add`. */
export interface ImportFlags {
  library?: string;
  /** Copy every recording, even those whose verified copy is in the library already (main/offload/known-copies.ts). */
  copyAgain?: boolean;
  /** Copy the recordings only, leaving previews, thumbnails and MISC/ on the card (the whole card by default). */
  recordingsOnly?: boolean;
  structure?: string;
  type?: 'interior' | 'exterior';
  design?: string;
  capturedAt?: string;
  /** Eject the card once it is safe to remove (main/card/eject.ts). */
  eject?: boolean;
}

/**
 * `import CARD`: offloads the card, then either queues the verified copies in `session` (when
 * `--structure` is given) or lists what waits for placement, and with `--eject` ejects the card
 * once it is safe to remove. Answers the exit status: 0 only when every recording verified (and,
 * with placement, `add`'s own status; with `--eject`, the card ejected), else 1. Throws Error when
 * `--structure` comes without `--type`, on an empty card or a library without room.
 */
export async function runImport(
  card: string,
  o: ImportFlags,
  g: { dataDir?: string; json?: boolean },
  session?: { c: typeof import('./commands.js'); s: import('./commands.js').Session },
  stop?: StopWatch,
): Promise<number> {
  if (o.structure !== undefined && !o.type)
    throw new Error('--type is required with --structure: interior or exterior');
  if (!session) {
    // Without a session the stop is this command's own: the line above says what is left of the
    // copy, and the status is 128 + the signal's number (docs/cli.md "Stopped by a signal").
    let imported;
    try {
      imported = await importCard(card, {
        library: o.library,
        dataDir: g.dataDir,
        json: g.json,
        lock: true,
        copyAgain: o.copyAgain,
        recordingsOnly: o.recordingsOnly,
        ...(stop ? { signal: stop.aborted } : {}),
      });
    } catch (err) {
      if (stop?.signal) return SIGNAL_EXIT[stop.signal];
      throw err;
    }
    const { result } = imported;
    if (result.verified && !g.json) waitingForPlacement(result);
    // A signal that came as the copy ended stopped nothing: said, so the status (still 128 + its
    // number, as a shell expects of a signalled command) is not read as a copy cut short.
    if (stop?.signal) {
      process.stderr.write(
        `Stopped by ${stop.signal} after the copy had ended: what is printed above is the whole of it${result.verified ? '' : ' (some copies did not verify)'}.\n`,
      );
      return SIGNAL_EXIT[stop.signal];
    }
    return !result.verified ? 1 : o.eject ? await ejectImported(result, g.json) : 0;
  }
  // Each recording is queued (and registered) as soon as its copies verified, while the rest of
  // the card is still being copied: its upload does not wait for the whole card.
  const codes: number[] = [];
  const { result } = await importCard(card, {
    library: o.library,
    dataDir: session.s.dataDir,
    json: g.json,
    copyAgain: o.copyAgain,
    recordingsOnly: o.recordingsOnly,
    ...(stop ? { signal: stop.aborted } : {}),
    onRecording: async (files) => {
      if (files.every((f) => f.verified)) codes.push(await queueCopies(session.c, session.s, files, o, g.json));
    },
  });
  if (!result.verified) return 1;
  const ejected = o.eject ? await ejectImported(result, g.json) : 0;
  return codes.find((c) => c !== 0) ?? ejected;
}

/**
 * `import --eject`, once the card is safe to remove: ejects the card the files were on (the folder
 * holding their DCIM, main/card/card-root.ts; else the folder given) with main/card/eject.ts and
 * says what happened, on stdout when ejected, on stderr with what to do when not. Answers 0 when
 * ejected, 1 when not.
 */
export async function ejectImported(result: OffloadResult, json: boolean | undefined): Promise<number> {
  const mountPoint = (result.files[0] && cardRootOf(result.files[0].source)) ?? result.card;
  const r = await ejectCard(mountPoint);
  if (json)
    process.stdout.write(
      `${printableJson({ type: 'eject', card: mountPoint, ejected: r.ejected, message: r.message })}\n`,
    );
  else (r.ejected ? process.stdout : process.stderr).write(`${printable(r.message)}\n`);
  return r.ejected ? 0 : 1;
}

/** `cards`: the Insta360 cards mounted now, one line each ("ROOT: Insta360 card, 48 recordings, 96 GB"), or why none. */
export async function printCards(json: boolean | undefined): Promise<void> {
  const { describeCard, findCards, mountRoots, windowsDrives } = await import('../intake/detect.js');
  const cards = await findCards(mountRoots(), process.platform === 'win32' ? windowsDrives() : []);
  if (json) process.stdout.write(`${printableJson({ type: 'cards', cards })}\n`);
  else if (cards.length === 0)
    process.stdout.write(
      `No Insta360 card is mounted (looked in ${printable(mountRoots().join(', ')) || 'the drive letters'}).\n`,
    );
  else for (const c of cards) process.stdout.write(`${printable(c.root)}: ${describeCard(c)}\n`);
}
