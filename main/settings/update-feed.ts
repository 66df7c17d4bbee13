import type { UpdateFeedView } from '../../shared/ipc.js';
import type { IpcHandlers } from '../ipc/dispatch.js';
import type { KeyValueStore } from './settings.js';
import { UpdateSettingsStore } from './update-settings.js';

/** What UpdateFeed needs from the shell. */
export interface UpdateFeedOptions {
  /** The settings file (electron-store in the app); the address is kept under `updates` (update-settings.ts). */
  store: KeyValueStore;
  /** Makes the updater follow `feedUrl` now ('' : off), main/updates/updates.ts Updates.setFeed. */
  apply(feedUrl: string): void;
  /**
   * Where updates stand: the state (UpdateStatus's) and a sentence (main/updates/updates.ts
   * updateDetail); without it, said from the address alone.
   */
  status?(): Pick<UpdateFeedView, 'state' | 'status'>;
}

/**
 * The update feed setting in the main process: answers the Settings screen
 * (`capture:updates.get|set`, shared/ipc.ts SHELL_CHANNELS), stores a new address and applies it at
 * once (docs/decisions/0017-updates.md). An address refused (not https, or http to another computer)
 * is answered as an Error naming the fix; nothing is stored or applied then.
 */
export class UpdateFeed {
  private readonly settings: UpdateSettingsStore;

  constructor(private readonly opts: UpdateFeedOptions) {
    this.settings = new UpdateSettingsStore(opts.store);
  }

  /** The address in force and where updates stand. */
  view(): UpdateFeedView {
    const { feedUrl } = this.settings.get();
    const now = this.opts.status?.() ?? {
      state: feedUrl ? ('idle' as const) : ('off' as const),
      status: feedUrl
        ? 'Updates are checked at start and once a day from this address.'
        : 'Updates are off: no update feed address is set.',
    };
    return { feedUrl, ...now };
  }

  /** Stores `feedUrl` ('' turns updates off) and applies it now; throws Error naming the fix when it cannot be used. */
  set(feedUrl: string): UpdateFeedView {
    const saved = this.settings.save({ feedUrl });
    this.opts.apply(saved.feedUrl);
    return this.view();
  }

  /** The two shell channels' handlers, for the IPC dispatch beside the service's (main/ipc/dispatch.ts). */
  handlers(): Pick<IpcHandlers, 'capture:updates.get' | 'capture:updates.set'> {
    return {
      'capture:updates.get': async () => this.view(),
      'capture:updates.set': async ({ feedUrl }) => this.set(feedUrl),
    };
  }
}
