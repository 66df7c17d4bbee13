import { proposalWarnings } from '../../../shared/capture-warnings.js';
import { captureFilesViolation, isVideo, mediaKindOf } from '../../../shared/capture-rules.js';
import type { InspectResult, LastPlacement } from '../../../shared/ipc.js';
import { mostUsedPlacement } from '../../../shared/registration.js';
import { reasonOf } from '../../api/errors.js';
import { duplicatesWithin, inspectPaths, recordedTime } from '../../intake/intake.js';
import type { IpcHandlers } from '../../ipc/dispatch.js';
import { readMediaMetadata } from '../../media/metadata.js';
import type { UploadQueue } from '../../queue/queue.js';
import { findKnownCopies } from '../../offload/known-copies.js';
import type { HandlerContext } from './handler-context.js';

/**
 * The Upload screen's IPC handlers (shared/ipc.ts): picking and inspecting files, queueing the
 * captures of the registration forms (capture-upload-interface.md §4.4, registered in the
 * background), and the placement most used last time.
 */
export function uploadHandlers(
  c: HandlerContext,
  pickFiles: () => Promise<string[]>,
): Pick<
  IpcHandlers,
  'capture:files.pick' | 'capture:files.inspect' | 'capture:captures.register' | 'capture:captures.lastPlacement'
> {
  return {
    'capture:files.pick': () => pickFiles(),
    'capture:files.inspect': (paths, signal) => inspect(c, paths, signal),
    'capture:captures.register': async (forms, signal) => {
      const u = c.requireUploader();
      const queued: number[] = [];
      const refused: { path: string; reason: string }[] = [];
      const placed: LastPlacement[] = [];
      for (const given of forms) {
        // Stopped between captures: each form is queued whole in its own transaction, or not at all.
        if (signal?.aborted) break;
        // Placed after its copy verified, a recording is queued at the copy: the card is not read again.
        const form = { ...given, paths: given.paths.map((p) => c.copyOf?.(p) ?? p) };
        // What the registration table showed is kept with the capture, with what the intake finds
        // (main/service/uploader.ts keepWarnings, the CLI's `add` too).
        const r = await u.enqueue(
          form.paths,
          { structure: form.structure, design: form.design, type: form.type, capturedAt: form.capturedAt },
          { warnings: form.warnings ?? [], oneCapture: true },
        );
        queued.push(...r.queued);
        refused.push(...r.refused);
        if (r.queued.length) placed.push({ structure: form.structure, design: form.design, type: form.type });
      }
      const usual = mostUsedPlacement(placed);
      if (usual) c.settings.rememberPlacement(c.projectId(), usual);
      c.touched(queued);
      // Registered in the background (§4.4, one capture at a time): the queue shows each one
      // "Registering" and its files start as soon as it is registered.
      u.engine.wake();
      c.startDrain();
      return { queued, refused };
    },
    'capture:captures.lastPlacement': async () => c.settings.lastPlacement(c.projectId()),
  };
}

/**
 * Groups the dropped paths into captures with their media facts, and says which are already
 * queued. Aborting `signal` stops it between two files or two captures (it writes nothing) and
 * rejects with the signal's reason.
 */
async function inspect(c: HandlerContext, paths: string[], signal?: AbortSignal): Promise<InspectResult> {
  const { groups, refused } = await inspectPaths(paths, signal);
  const u = c.uploader();
  const captures: InspectResult['captures'] = [];
  const notes = new Map<number, string>();
  for (const g of groups) {
    signal?.throwIfAborted();
    const video = g.files.find((f) => isVideo(mediaKindOf(f.name)))!;
    const media = await readMediaMetadata(video.path).catch((err: unknown) => ({
      error: `Could not read the video's metadata: ${reasonOf(err)}`,
    }));
    // The camera's clock as the file name gives it, whichever convention the header follows (intake.ts).
    const recorded = recordedTime(g, 'createdAt' in media ? media.createdAt : undefined);
    if (recorded.note) notes.set(captures.length, recorded.note);
    captures.push({
      key: g.key,
      kind: g.kind,
      label: g.label,
      files: g.files.map((f) => ({ path: f.path, name: f.name, size: f.size })),
      violation: captureFilesViolation(g.files.map((f) => f.name)),
      media,
      capturedAt: recorded.iso,
      alreadyQueued: Boolean(
        u && (g.files.some((f) => u.queue.findQueuedFile(f)) || (await queuedAsCopy(u.queue, g.files))),
      ),
    });
  }
  // A recording twice on the card (the same content at two paths) is registered once: said
  // before the confirmation, which then counts only what will be registered.
  for (const [i, j] of await duplicatesWithin(groups, signal)) captures[i]!.duplicateOf = captures[j]!.label;
  // What a person should know before registering: the table and the confirmation show it.
  const warned = proposalWarnings(captures).map((w, i) => (notes.has(i) ? [...w, notes.get(i)!] : w));
  return { captures: captures.map((x, i) => (warned[i]!.length ? { ...x, warnings: warned[i]! } : x)), refused };
}

/**
 * Whether a recording on a card is queued through its library copy: an earlier import copied it
 * (found by content, main/offload/known-copies.ts; docs/decisions/0020-card-known-by-content.md) and
 * the queue holds that copy, uploaded or waiting. The queue holds the copies' paths, never the
 * card's, so the card's own paths do not find them. A file that cannot be read is not.
 */
async function queuedAsCopy(
  queue: UploadQueue,
  files: readonly { path: string; size: number; mtimeMs: number }[],
): Promise<boolean> {
  const known = await findKnownCopies(queue.db, files).catch(() => new Map());
  return files.some((f) => known.get(f.path)?.queue);
}
