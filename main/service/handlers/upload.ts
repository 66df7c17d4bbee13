import { captureFilesViolation, isVideo, mediaKindOf } from '../../../shared/capture-rules.js';
import type { InspectResult, LastPlacement } from '../../../shared/ipc.js';
import { mostUsedPlacement } from '../../../shared/registration.js';
import { reasonOf } from '../../api/errors.js';
import { inspectPaths, suggestedTime } from '../../intake/intake.js';
import type { IpcHandlers } from '../../ipc/dispatch.js';
import { readMediaMetadata } from '../../media/metadata.js';
import type { HandlerContext } from './context.js';

/**
 * The Upload screen's IPC handlers (shared/ipc.ts): picking and inspecting files, queueing the
 * captures of the registration forms (capture-upload-interface.md §4.4, registered in the
 * background), and the placement most used last time.
 */
export function uploadHandlers(
  c: HandlerContext,
  pickFiles: () => Promise<string[]>,
): Pick<IpcHandlers, 'capture:files.pick' | 'capture:files.inspect' | 'capture:captures.register' | 'capture:captures.lastPlacement'> {
  return {
    'capture:files.pick': () => pickFiles(),
    'capture:files.inspect': (paths) => inspect(c, paths),
    'capture:captures.register': async (forms) => {
      const u = c.requireUploader();
      const queued: number[] = [];
      const refused: { path: string; reason: string }[] = [];
      const placed: LastPlacement[] = [];
      for (const form of forms) {
        const r = await u.enqueue(form.paths, { structure: form.structure, design: form.design, type: form.type, capturedAt: form.capturedAt });
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
      c.kick();
      return { queued, refused };
    },
    'capture:captures.lastPlacement': async () => c.settings.lastPlacement(c.projectId()),
  };
}

/** Groups the dropped paths into captures with their media facts, and says which are already queued. */
async function inspect(c: HandlerContext, paths: string[]): Promise<InspectResult> {
  const { groups, refused } = await inspectPaths(paths);
  const u = c.uploader();
  const captures = [];
  for (const g of groups) {
    const video = g.files.find((f) => isVideo(mediaKindOf(f.name)))!;
    const media = await readMediaMetadata(video.path).catch((err: unknown) => ({ error: `Could not read the video's metadata: ${reasonOf(err)}` }));
    captures.push({
      key: g.key,
      kind: g.kind,
      label: g.label,
      files: g.files.map((f) => ({ path: f.path, name: f.name, size: f.size })),
      violation: captureFilesViolation(g.files.map((f) => f.name)),
      media,
      capturedAt: ('createdAt' in media && media.createdAt) || suggestedTime(g),
      alreadyQueued: Boolean(u && g.files.some((f) => u.queue.findQueuedFile(f))),
    });
  }
  return { captures, refused };
}
