import { reasonOf } from '../../api/errors.js';
import type { GatewayConfig } from '../../api/gateway.js';
import { CaptureGateway } from '../../api/gateway.js';
import type { IpcHandlers } from '../../ipc/dispatch.js';
import type { SettingsContext } from './handler-context.js';

/** Said when the local test service is asked for in an installation that does not have it. */
export const NO_LOCAL_SERVICE =
  'The local test service is not part of this installation: enter your capture service details instead.';

/**
 * The Settings screen's IPC handlers (shared/ipc.ts): the stored settings, saving them after a
 * sign-in check (then the queue is opened again on the new service), the local test service, and
 * the upload limits (bandwidth, timetable). Errors are thrown as Error with a message for the screen.
 */
export function settingsHandlers(
  c: SettingsContext,
): Pick<
  IpcHandlers,
  'capture:settings.get' | 'capture:settings.save' | 'capture:settings.useLocalService' | 'capture:engine.limits'
> {
  return {
    'capture:settings.get': async () => c.view(),
    'capture:settings.save': async (input) => {
      const { next, resolved } = c.settings.prepare(input);
      const config: GatewayConfig = { ...resolved };
      try {
        await new CaptureGateway(config, { retry: { retries: 1, delayMs: () => 200 } }).signIn();
      } catch (err) {
        throw new Error(`Sign-in failed: ${reasonOf(err)}. Check the sign-in address, email and password.`);
      }
      c.settings.commit(next);
      await c.closeUploader();
      await c.closeLocal();
      c.openWith(config, next.concurrency);
      return c.view();
    },
    'capture:settings.useLocalService': async () => {
      // Refused before anything closes, so the queue in use carries on.
      if (!c.localServiceAvailable) throw new Error(NO_LOCAL_SERVICE);
      await c.closeUploader();
      await c.openLocal(c.settings.view().concurrency);
      c.settings.useLocal(c.localStructures(), c.settings.view().concurrency);
      return c.view();
    },
    'capture:engine.limits': async ({ bandwidthBytesPerSecond, timetable }) => ({
      bandwidthBytesPerSecond: c.limits.set(bandwidthBytesPerSecond, timetable ?? null),
    }),
  };
}
