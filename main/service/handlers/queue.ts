import type { IpcHandlers } from '../../ipc/dispatch.js';
import type { UploadEngine } from '../../engine/engine.js';
import type { QueuedCapture } from '../../queue/rows.js';
import { capturesOfDay } from '../../office/day-captures.js';
import type { HandlerContext } from './handler-context.js';

type QueueChannels =
  | 'capture:queue.list'
  | 'capture:queue.byDay'
  | 'capture:queue.pauseUntil'
  | 'capture:queue.pause'
  | 'capture:queue.resume'
  | 'capture:queue.retry'
  | 'capture:queue.remove'
  | 'capture:queue.removeFile'
  | 'capture:queue.front'
  | 'capture:queue.clearCompleted'
  | 'capture:queue.edit'
  | 'capture:queue.resolve'
  | 'capture:activity.list';

/**
 * The Queue screen's IPC handlers (shared/ipc.ts): the list, the queue-wide hold ("Pause until"),
 * pause / resume / retry of one file or all, moving a capture to the front, removing, clearing, editing a capture, deciding a
 * registration whose outcome is unknown, and the activity log. Throws Error when the app is not set up.
 */
export function queueHandlers(c: HandlerContext): Pick<IpcHandlers, QueueChannels> {
  const control = (
    t: { fileId: number } | { all: true },
    all: (e: UploadEngine) => void,
    one: (e: UploadEngine, id: number) => void,
  ): void => {
    const { engine } = c.requireUploader();
    if ('fileId' in t) one(engine, t.fileId);
    else all(engine);
    c.startDrain();
  };
  return {
    'capture:queue.list': async () => c.queueView(),
    // The field's day beside the office's: one read of queue.db, names from the settings.
    'capture:queue.byDay': async ({ date }) => {
      const u = c.uploader();
      if (!u) return [];
      const names = new Map(c.settings.view().structures.map((st) => [st.id, st.name]));
      return capturesOfDay(u.queue.db, c.projectId(), date).map((x) => ({
        ...x,
        state: x.state as QueuedCapture['state'],
        structureName: names.get(x.structure) ?? x.structure,
      }));
    },
    'capture:queue.pauseUntil': async ({ until }) => {
      c.requireUploader();
      c.limits.pauseUntil(until);
      c.startDrain();
    },
    // "Pause all", "Resume all", "Retry all": one transaction, one activity line, one event.
    'capture:queue.pause': async (t) =>
      control(
        t,
        (e) => e.pauseAll(),
        (e, id) => e.pause(id),
      ),
    'capture:queue.resume': async (t) =>
      control(
        t,
        (e) => e.resumeAll(),
        (e, id) => e.resume(id),
      ),
    // Pending files are tried now only if they wait for a retry time (resume leaves the others).
    'capture:queue.retry': async (t) =>
      control(
        t,
        (e) => e.retryAll(),
        (e, id) => e.resume(id),
      ),
    // Removed from this computer's queue first, then its uploads stop (nothing changes at the platform).
    'capture:queue.remove': ({ captureRow }) => c.requireUploader().engine.removeCapture(captureRow),
    'capture:queue.removeFile': ({ fileId }) => c.requireUploader().engine.removeFile(fileId),
    // "The site manager needs floor 3 first": the uploads follow at once.
    'capture:queue.front': async ({ captureRow, front }) => {
      await c.requireUploader().engine.moveCapture(captureRow, front);
      c.startDrain();
    },
    'capture:queue.clearCompleted': async () => ({ captures: c.requireUploader().engine.clearCompleted() }),
    'capture:queue.edit': async ({ captureRow, structure, design, type, capturedAt }) => {
      c.requireUploader().engine.editCapture(captureRow, { structure, design, type, captureDateTime: capturedAt });
      c.startDrain();
    },
    'capture:queue.resolve': async ({ captureRow, decision }) => {
      c.requireUploader().engine.resolveRegistration(captureRow, decision);
      c.startDrain();
    },
    'capture:activity.list': async ({ since, limit }) => c.requireUploader().queue.activity.list({ since, limit }),
  };
}
