import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RetryPolicy } from '../api/errors.js';
import type { GatewayConfig } from '../api/gateway.js';
import { CaptureGateway } from '../api/gateway.js';
import type { EngineOptions, Logger } from '../engine/engine.js';
import { UploadEngine } from '../engine/engine.js';
import { MAX_PARTS, tooManyParts } from '../engine/transitions.js';
import type { IntakeChoices, MediaFacts, RefusedPath } from '../intake/intake.js';
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
export const DEFAULT_PART_SIZE = 5 * 1024 * 1024;

/** Everything an uploader needs: the queue folder, the gateway, and engine settings. */
export interface UploaderOptions extends Omit<EngineOptions, 'queue' | 'gateway'> {
  /** Folder of the queue database (`queue.db`). Created if missing. */
  dataDir: string;
  gateway: GatewayConfig;
  /** Retries of service calls (default §8 recommended). */
  apiRetry?: RetryPolicy;
  /** Reads capture facts from a recording (default: its MP4 header and Insta360 trailer). */
  readFacts?: (path: string) => Promise<MediaFacts>;
  log?: Logger;
  /**
   * Where the imports running in this process are (the app's card desk; issue 19 #4): files placed
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
  /**
   * Checks and queues the files as captures (§7–§8 rules), then registers them (§4.4).
   * Returns the row ids queued and the paths refused with their reasons.
   */
  add(paths: readonly string[], choices: Omit<IntakeChoices, 'project'>): Promise<{ queued: number[]; refused: RefusedPath[]; warnings: RefusedPath[] }>;
  /**
   * Checks and queues the files as captures, as `add`, without registering them: the engine's
   * drain registers them (§4.4) in the background. For the app, where a card of 100 recordings
   * should leave the confirmation at once and the queue shows each capture being registered.
   */
  enqueue(paths: readonly string[], choices: Omit<IntakeChoices, 'project'>): Promise<{ queued: number[]; refused: RefusedPath[]; warnings: RefusedPath[] }>;
  close(): Promise<void>;
}

/**
 * Opens the queue in `dataDir` (taking its lock: one writer) and builds the engine, on the calling
 * thread. The desktop app calls it in the upload service's worker thread (main/service/worker.ts,
 * through AppCore), never on Electron's main thread. The CLI (main/cli/commands.ts) calls it on its
 * own process's main thread and may: it has no window, tray or IPC to keep responsive, and a
 * process per command is what Ctrl-C and exit codes expect (issue 21 #1).
 * Throws QueueInUseError when another live process has the queue, QueueTooNewError for a newer queue.
 */
export function openUploader(opts: UploaderOptions): Uploader {
  mkdirSync(opts.dataDir, { recursive: true });
  const unlock = lockQueue(opts.dataDir);
  let opened;
  try {
    opened = openQueueDatabase(join(opts.dataDir, 'queue.db'));
  } catch (err) {
    unlock();
    throw err;
  }
  const { db, setAside } = opened;
  const queue = new UploadQueue(db);
  let removed: string[] = [];
  let due: ReturnType<typeof dueOnSettingsChange>;
  try {
    due = dueOnSettingsChange(queue, opts.gateway);
    // An offload of an earlier run left copying (the app stopped mid-import) is interrupted; its
    // verified copies stay recorded. A file held for a copy by that run moves to its recorded
    // verified copy, or else uploads from the card (issue 19 #4, #7).
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
  if (removed.length > 0) opts.log?.info(`Removed ${removed.length} half-written copy file(s) left by an import that was interrupted.`);
  if (due.captures + due.files > 0) opts.log?.info(`The settings changed: ${due.captures} capture(s) and ${due.files} file(s) that waited for a retry are due now.`);
  const gateway = new CaptureGateway(opts.gateway, { retry: opts.apiRetry });
  const engine = new UploadEngine({ ...opts, queue, gateway });
  if (setAside) opts.log?.warn(`The upload queue was damaged; it was moved to ${setAside} and a new, empty queue was started.`);
  return {
    queue,
    gateway,
    engine,
    setAside,
    async add(paths, choices) {
      const res = await this.enqueue(paths, choices);
      await engine.registerQueued();
      return res;
    },
    async enqueue(paths, choices) {
      const { captures, refused, warnings } = await prepareCaptures(paths, { ...choices, project: opts.gateway.projectId }, opts.readFacts ?? readMediaFacts);
      const queued: number[] = [];
      // S3 allows 10,000 parts: refuse now what could never finish, at the part size the service
      // last gave (the interface's sample, 5 MiB, before any registration); registration checks again.
      const partSize = queue.meta.get<number>('partSize') ?? DEFAULT_PART_SIZE;
      // The whole intake in one transaction: one wait for the disk (synchronous=FULL) instead of
      // two per capture, and a card is queued whole or not at all. Nothing is sent before it
      // commits (docs/queue-commits.md).
      queue.db.transaction(() => {
        for (const c of captures) {
          const tooBig = c.files.find((f) => Math.ceil(f.size / partSize) > MAX_PARTS);
          if (tooBig) {
            for (const f of c.files) refused.push({ path: f.path, reason: f === tooBig ? tooManyParts(f.fileName, f.size, partSize) : `Not queued: ${tooBig.fileName} of the same capture is too large.` });
            continue;
          }
          // Dropping the same card twice, or reaching it by another path or mount point, must not
          // register the same recording twice (same inode, or same content fingerprint).
          const already = c.files.map((f) => queue.findQueuedFile(f)).find(Boolean);
          if (already) {
            const label = queue.capture(already.captureRow)?.label ?? '';
            for (const f of c.files) refused.push({ path: f.path, reason: `Already in the queue as capture ${already.captureRow} (${label}); it is not added twice.` });
            continue;
          }
          const row = queue.enqueueCapture(c.label, c.request, c.files);
          // A recording that changed on disk while it uploaded, added again: its old file is shown
          // as replaced by this capture, never left to look like a second copy (issue 17 #14).
          queue.replaceChanged(row, c.files);
          queued.push(row);
        }
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
