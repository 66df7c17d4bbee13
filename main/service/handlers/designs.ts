import { reasonOf } from '../../api/errors.js';
import { retryWatch } from '../../api/retry.js';
import type { IpcHandlers } from '../../ipc/dispatch.js';
import type { HandlerContext } from './handler-context.js';

/**
 * The default designs' IPC handlers (shared/ipc.ts): whether the exported capture sheets are stale
 * (capture-upload-interface.md §4.3) and requesting a new export (§4.2), its retries told as
 * `capture:event.export`. Throws Error when the app is not set up, and the gateway's errors as they come.
 */
export function designsHandlers(
  c: HandlerContext,
): Pick<IpcHandlers, 'capture:designs.check' | 'capture:designs.export'> {
  return {
    'capture:designs.check': async (_args, signal) => {
      const u = c.requireUploader();
      const latest = await u.gateway.latestDefaultDesignUpdate(signal);
      const lastExport = u.queue.lastSheetExport(c.projectId()) ?? null;
      // §4.3: designs updated after the last export make the exported sheets stale.
      const stale = latest !== null && (!lastExport || Date.parse(latest) > Date.parse(lastExport.requestedAt));
      return { latestDesignUpdate: latest, lastExport, stale };
    },
    'capture:designs.export': async (_args, signal) => {
      const u = c.requireUploader();
      const latest = await u.gateway.latestDefaultDesignUpdate(signal).catch(() => null);
      signal?.throwIfAborted();
      // Stopped while the request is on the wire, nothing is recorded; once §4.2 answered, the
      // export was made and is recorded, whatever the caller does meanwhile. Each retry of the
      // request (main/api/retry.ts, §7–§8) is told to the window, which says it beside the request.
      const res = await retryWatch.run(
        ({ retry, of, waitMs, error }) =>
          c.emit('capture:event.export', { retry, of, waitMs, reason: reasonOf(error) }),
        () => u.gateway.requestExport(undefined, signal),
      );
      u.queue.recordSheetExport(c.projectId(), latest);
      return { message: res.message };
    },
  };
}
