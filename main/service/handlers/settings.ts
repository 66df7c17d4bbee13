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
 * sign-in check (then the queue is opened again on the new service, or waited for while another
 * process holds it), the local test service, and
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
      // A queue another process holds (a CLI drain) is waited for with the settings kept: the
      // status says so, and it opens once that process ends (AppCore.openOrWait).
      await c.openOrWait(() => c.openWith(config));
      return c.view();
    },
    'capture:settings.useLocalService': async () => {
      // Refused before anything closes, so the queue in use carries on.
      if (!c.localServiceAvailable) throw new Error(NO_LOCAL_SERVICE);
      await c.closeUploader();
      // The local service started (its structures known) and the queue opened, or waited for when
      // another process holds it; the choice is kept either way, before the next try of the
      // opening, which reads the stored settings.
      await c.openOrWait(() => c.openLocal());
      c.settings.useLocal(c.localStructures(), c.localProjectName());
      return c.view();
    },
    'capture:engine.limits': async ({ bandwidthBytesPerSecond, timetable }) => ({
      bandwidthBytesPerSecond: c.limits.set(bandwidthBytesPerSecond, timetable ?? null),
    }),
  };
}
