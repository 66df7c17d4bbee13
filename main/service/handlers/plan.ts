import type { IpcHandlers } from '../../ipc/dispatch.js';
import { recentPlacements } from '../../queue/reader.js';
import type { CapturePlanner } from '../capture-planner.js';
import type { HandlerContext } from './handler-context.js';

/**
 * The Plan panel's IPC handlers (shared/ipc/plan.ts): the capture plan kept in the queue, read and
 * saved whole (main/service/capture-planner.ts), and the recent places the registration table offers
 * each walk first. Errors are thrown as Error with a message for the screen.
 */
export function planHandlers(
  planner: CapturePlanner,
  c: Pick<HandlerContext, 'uploader' | 'projectId'>,
): Pick<IpcHandlers, 'capture:plan.get' | 'capture:plan.save' | 'capture:captures.recentPlaces'> {
  return {
    'capture:plan.get': async () => planner.view(),
    'capture:plan.save': async (plan) => planner.save(plan),
    // The places a person places walks in, one choice away (the walk's list, before every place).
    'capture:captures.recentPlaces': async () => {
      const db = c.uploader()?.queue.db;
      return db ? recentPlacements(db, c.projectId()) : [];
    },
  };
}
