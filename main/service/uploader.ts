import { existsSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { RetryPolicy } from '../api/errors.js';
import type { GatewayConfig } from '../api/gateway.js';
import { CaptureGateway } from '../api/gateway.js';
import type { EngineOptions, Logger } from '../engine/engine.js';
import { UploadEngine } from '../engine/engine.js';
import { MAX_PARTS } from '../engine/progress/transitions.js';
import { vanishedLens } from '../../shared/capture-warnings.js';
import type { IntakeChoices, MediaFacts, PreparedCapture, RefusedPath } from '../intake/intake.js';
import { prepareCaptures } from '../intake/intake.js';
import { readMediaFacts } from '../media/metadata.js';
import { openQueueDatabase } from '../queue/db.js';
import { lockQueue } from '../queue/lock.js';
import type { CopyRoute } from '../queue/copy-holds.js';
import { settleCopyHolds } from '../queue/copy-holds.js';
import { markInterruptedOffloads } from '../offload/record.js';
import { removeInterruptedPartials } from '../offload/partials.js';
import { withRecordedCopies } from '../offload/recorded-copies.js';
import { UploadQueue } from '../queue/queue.js';
import { dueOnSettingsChange } from '../settings/settings-change.js';

/** The part size (bytes) assumed before the service gave one: the sample of capture-upload-interface.md §8. */
const DEFAULT_PART_SIZE = 5 * 1024 * 1024;

/** Everything an uploader needs: the queue folder, the gateway, and engine settings. */
export interface UploaderOptions extends Omit<EngineOptions, 'queue' | 'gateway'> {
  /** Folder of the queue database (`queue.db`). Created if missing. */
  dataDir: string;
  gateway: GatewayConfig;
  /** Retries of service calls (default §8 recommended). */
  apiRetry?: RetryPolicy;
  /** Idle timeout of service calls in ms: no byte for this long (default 60 000; main/api/http.ts). */
  apiIdleTimeoutMs?: number;
  /** Reads capture facts from a recording (default: its MP4 header and Insta360 trailer). */
  readFacts?: (path: string) => Promise<MediaFacts>;
  log?: Logger;
  /**
   * Where the imports running in this process are (the app's card imports): files placed
   * from a card being copied are held for their verified copies. Without it (the CLI) nothing is
   * held. At open every file an earlier run held is moved to its copy when the queue's offload
   * record lists it verified (main/offload/recorded-copies.ts), else released where it is: no import runs for it.
   * Files queued later go to such a recorded copy too (the CLI's as well), when this route knows none.
   */
  copyRoute?: CopyRoute;
}

/** A queue, a gateway client and an engine over them, shared by the CLI and the desktop app. */
export interface Uploader {
  queue: UploadQueue;
  gateway: CaptureGateway;
  engine: UploadEngine;
  /** Set when a corrupt queue file was moved aside on opening (its new path). */
  setAside?: string;
  /** Why it was moved aside, one clause (OpenedQueue.damage); set with `setAside`. */
  damage?: string;
  /**
   * Checks and queues the files as captures (§7–§8 rules), then registers them (§4.4), unless
   * `opts.signal` aborted meanwhile (the captures queued then wait for a drain). Returns the row
   * ids queued and the paths refused with their reasons; see `enqueue` for the rest.
   */
  add(
    paths: readonly string[],
    choices: Omit<IntakeChoices, 'project'>,
    opts?: EnqueueOptions,
  ): Promise<{ queued: number[]; refused: RefusedPath[]; warnings: RefusedPath[] }>;
  /**
   * Checks and queues the files as captures, as `add`, without registering them: the engine's
   * drain registers them (§4.4) in the background. For the app, where a card of 100 recordings
   * should leave the confirmation at once and the queue shows each capture being registered.
   * What a person should know of each capture queued is kept with it in the same transaction
   * (keepWarnings), for the app and the CLI alike. `warnings` names the files whose media looks
   * odd. Aborting `opts.signal` stops the intake between two files and rejects with its reason
   * (nothing is queued); once the intake is done, the captures are queued whole.
   */
  enqueue(
    paths: readonly string[],
    choices: Omit<IntakeChoices, 'project'>,
    opts?: EnqueueOptions,
  ): Promise<{ queued: number[]; refused: RefusedPath[]; warnings: RefusedPath[] }>;
  close(): Promise<void>;
}

/**
 * Opens the queue in `dataDir` (taking its lock: one writer) and builds the engine, on the calling
 * thread. The desktop app calls it in the upload service's worker thread (main/service/worker.ts,
 * through AppCore), never on Electron's main thread. The CLI (main/cli/commands.ts) calls it on its
 * own process's main thread and may: it has no window, tray or IPC to keep responsive, and a
 * process per command is what Ctrl-C and exit codes expect.
 * Throws QueueInUseError when another live process has the queue, QueueTooNewError for a newer queue.
 */
export function openUploader(opts: UploaderOptions): Uploader {
  mkdirSync(opts.dataDir, { recursive: true });
  // A lock file there before this process takes it says the folder held a queue (queueDamage).
  const usedBefore = existsSync(join(opts.dataDir, 'queue.lock'));
  const unlock = lockQueue(opts.dataDir);
  let opened;
  try {
    opened = openQueueDatabase(join(opts.dataDir, 'queue.db'), undefined, { usedBefore });
  } catch (err) {
    unlock();
    throw err;
  }
  const { db, setAside, damage } = opened;
  const queue = new UploadQueue(db);
  let removed: string[] = [];
  let due: ReturnType<typeof dueOnSettingsChange>;
  try {
    due = dueOnSettingsChange(queue, opts.gateway);
    // An offload of an earlier run left copying (the app stopped mid-import) is interrupted; its
    // verified copies stay recorded. A file held for a copy by that run moves to its recorded
    // verified copy, or else uploads from the card.
    const route = withRecordedCopies(db, opts.copyRoute);
    const running = route.runningOffloads!();
    markInterruptedOffloads(db, running);
    settleCopyHolds(db, route);
    // Files placed from now on go to those recorded copies too, not only to this session's
    // imports' (same rule): a card whose copies verified before a stop can be reused at once.
    queue.copyRoute = route;
    // Their half-written copies (`.NAME.partial`) are never resumed: removed, not those of an
    // import this process still runs (main/offload/partials.ts).
    removed = removeInterruptedPartials(db, running);
  } catch (err) {
    db.close();
    unlock();
    throw err;
  }
  if (removed.length > 0)
    opts.log?.info(`Removed ${removed.length} half-written copy file(s) left by an import that was interrupted.`);
  if (due.captures + due.files > 0)
    opts.log?.info(
      `The settings changed: ${due.captures} capture(s) and ${due.files} file(s) that waited for a retry are due now.`,
    );
  const gateway = new CaptureGateway(opts.gateway, {
    retry: opts.apiRetry,
    timeoutMs: opts.apiIdleTimeoutMs,
    // One slowest link for parts and answers alike: the calls' total deadlines (http.ts jsonDeadlineMs).
    minLinkRate: opts.minLinkRate,
    log: (m) => opts.log?.info(m),
  });
  const engine = new UploadEngine({ ...opts, queue, gateway });
  if (setAside)
    opts.log?.warn(
      `The upload queue was damaged (${damage}); it was moved to ${setAside} and a new, empty queue was started.`,
    );
  return {
    queue,
    gateway,
    engine,
    setAside,
    damage,
    async add(paths, choices, options) {
      const res = await this.enqueue(paths, choices, options);
      // Stopped meanwhile (a signal to the CLI): the captures are queued, and a drain registers them.
      if (!options?.signal?.aborted) await engine.registerQueued();
      return res;
    },
    async enqueue(paths, choices, options = {}) {
      const { captures, refused, warnings } = await prepareCaptures(
        paths,
        { ...choices, project: opts.gateway.projectId },
        opts.readFacts ?? readMediaFacts,
        options.signal,
      );
      const queued: number[] = [];
      const kept: { row: number; capture: (typeof captures)[number] }[] = [];
      // The whole intake in one transaction: one wait for the disk (synchronous=FULL) instead of
      // two per capture, and a card is queued whole or not at all. Nothing is sent before it
      // commits (docs/queue-commits.md).
      queue.transaction(() => {
        for (const c of captures) {
          // The part size is the registration's to give (§4.4 `partSize`), so the 10,000-part limit is
          // decided there, with this gateway's answer (Transitions.registered). Before it, only what no
          // part size could store is refused, and what the interface's sample part size could not is
          // said, both for the whole capture (docs/decisions/0010-whole-capture.md).
          const limit = partLimitBeforeRegistration(c.files);
          if (limit?.refuse) {
            for (const f of c.files) refused.push({ path: f.path, reason: limit.sentence });
            continue;
          }
          if (limit) warnings.push({ path: limit.path, reason: limit.sentence });
          // A recording with a file changed on disk since it was queued is registered again whole
          // (§4.4: a new capture); the captures holding those changed files are replaced by it.
          const changed = c.files.flatMap((f) => queue.changedMatches(f));
          const redo = new Set(changed.map((q) => q.captureRow));
          // Dropping the same card twice, or reaching it by another path or mount point, must not
          // register the same recording twice (same inode, or same content fingerprint). The
          // unchanged files of a capture registered again whole are not "already queued".
          const matched = c.files.map((f) => queue.findQueuedFile(f));
          const already = matched.find((q) => q && !redo.has(q.captureRow));
          if (already) {
            const label = queue.capture(already.captureRow)?.label ?? '';
            for (const f of c.files)
              refused.push({
                path: f.path,
                reason: `Already in the queue as capture ${already.captureRow} (${label}); it is not added twice.`,
              });
            continue;
          }
          // Whole or not at all: a changed lens added without the rest of its recording would split
          // it into two captures, so every file of the capture it replaces must come along.
          const covered = new Set([...changed, ...matched].flatMap((q) => (q ? [q.id] : [])));
          const missing = [...redo]
            .flatMap((row) => queue.filesOf(row))
            .filter((q) => q.replacedBy === null && !covered.has(q.id));
          if (missing.length > 0) {
            const row = missing[0]!.captureRow;
            for (const f of c.files) {
              refused.push({
                path: f.path,
                reason: `Not queued: its recording (capture ${row}) is registered again whole; add it together with ${missing.map((q) => q.path).join(', ')}.`,
              });
            }
            continue;
          }
          // What still uploads of the capture being replaced stops first (parts in flight aborted).
          for (const q of [...redo].flatMap((row) => queue.filesOf(row)))
            if (['pending', 'uploading', 'paused'].includes(q.state)) engine.cancel(q.id);
          const row = queue.enqueueCapture(c.label, c.request, c.files);
          // A recording that changed on disk while it uploaded, added again: its old capture is shown
          // as replaced by this one, never left to look like a second copy.
          queue.replaceChanged(row, c.files);
          queued.push(row);
          kept.push({ row, capture: c });
        }
        keepWarnings(queue, kept, { paths, refused, warnings }, options);
      })();
      return { queued, refused, warnings };
    },
    async close() {
      await engine.stop();
      db.close();
      unlock();
    },
  };
}

/** How `enqueue` and `add` are asked: a stop, and what the app's registration table said. */
interface EnqueueOptions {
  /** Aborted: the intake stops between two files (nothing queued); `add` then registers nothing. */
  signal?: AbortSignal;
  /** The warnings the registration table showed for these paths (the app's inspection, shared/capture-warnings.ts). */
  warnings?: readonly string[];
  /**
   * The paths are one capture's, as the app registers each form: a path not queued with it did
   * not go up with it (a lens that vanished since the card was read), and is said as a warning.
   */
  oneCapture?: boolean;
}

/**
 * Keeps with each capture queued what a person should know, as activity lines of kind `warning`
 * (shared/capture-warnings.ts), each said once per capture: `opts.warnings` (what the app's
 * registration table showed), the capture's own from the intake (a missing trailer, a lone lens,
 * much shorter than the others queued with it), what the intake found reading its files' media
 * (`found.warnings`: no MP4 header, the 10,000-part sentence), and with `opts.oneCapture` a given
 * path not among its files (vanishedLens, with the reason it was refused). The one place the app
 * and the CLI record them; the finish line, the tray, the notification, `status` and `log
 * --summary` read them back from the queue. Runs inside the caller's transaction.
 */
function keepWarnings(
  queue: UploadQueue,
  kept: readonly { row: number; capture: PreparedCapture }[],
  found: { paths: readonly string[]; refused: readonly RefusedPath[]; warnings: readonly RefusedPath[] },
  opts: EnqueueOptions,
): void {
  const refusedBy = new Map(found.refused.map((x) => [x.path, x.reason]));
  for (const { row, capture } of kept) {
    const mine = new Set(capture.files.map((f) => f.path));
    const said = new Set<string>([...(opts.warnings ?? []), ...capture.warnings]);
    for (const w of found.warnings) if (mine.has(w.path)) said.add(w.reason);
    if (opts.oneCapture && kept.length === 1)
      for (const p of found.paths) if (!mine.has(p)) said.add(vanishedLens(basename(p), refusedBy.get(p)));
    for (const message of said)
      queue.activity.add({ captureRow: row, fileId: null, subject: capture.label, kind: 'warning', message });
  }
}

/** S3's largest object (bytes): no part size lets a larger file be stored. */
export const MAX_OBJECT_SIZE = 5 * 1024 ** 4;

/**
 * What can be said of a capture's files against the 10,000-part limit before it is registered,
 * when the part size is not known yet (it comes with the §4.4 answer): `refuse` when a file is
 * larger than S3's largest object, which no part size can store; otherwise a warning when a file
 * would need more than MAX_PARTS parts at the interface's sample part size (5 MiB, §8), since the
 * gateway may give larger parts. One sentence for the capture, on the path of the file concerned;
 * undefined when neither applies. Sizes in bytes.
 */
export function partLimitBeforeRegistration(
  files: readonly { path: string; fileName: string; size: number }[],
): { refuse: boolean; path: string; sentence: string } | undefined {
  const others = files.length > 1 ? ` None of the capture's ${files.length} files is queued.` : '';
  const huge = files.find((f) => f.size > MAX_OBJECT_SIZE);
  if (huge) {
    return {
      refuse: true,
      path: huge.path,
      sentence: `Not queued: ${huge.fileName} is larger than storage's largest object (5 TiB), whatever the part size.${others}`,
    };
  }
  const big = files.find((f) => Math.ceil(f.size / DEFAULT_PART_SIZE) > MAX_PARTS);
  if (!big) return undefined;
  const parts = Math.ceil(big.size / DEFAULT_PART_SIZE).toLocaleString('en');
  return {
    refuse: false,
    path: big.path,
    sentence:
      `${big.fileName} would need ${parts} parts of 5 MiB (the interface's sample part size) and storage allows ${MAX_PARTS.toLocaleString('en')}: ` +
      `if the service gives parts that small at registration, the whole capture waits for you and nothing of it is sent.`,
  };
}
