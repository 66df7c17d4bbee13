import { updateFeedProblem } from '../../shared/service-url.js';
import type { KeyValueStore } from './settings.js';

/** The settings store's key for the update settings, apart from the service settings so saving either leaves the other. */
export const UPDATES_KEY = 'updates';

/**
 * The update settings (key `updates` of the app's settings file): `feedUrl` is the address of the
 * folder an electron-builder generic provider publishes to (`latest.yml`, `latest-linux.yml`,
 * `latest-mac.yml` and the installers beside them). Empty: the app never checks for updates
 * (docs/decisions/0017-updates.md).
 */
export interface UpdateSettings {
  feedUrl: string;
}

/** Reads and writes the update settings; a missing or malformed entry reads as updates off. */
export class UpdateSettingsStore {
  constructor(private readonly store: KeyValueStore) {}

  /** The settings in force: the feed address without a trailing slash, or '' when updates are off. */
  get(): UpdateSettings {
    const raw = (this.store.get(UPDATES_KEY) ?? {}) as Partial<UpdateSettings>;
    const feedUrl = typeof raw.feedUrl === 'string' ? raw.feedUrl.trim().replace(/\/+$/, '') : '';
    // A stored address that is no web address (edited by hand) turns updates off rather than failing every check.
    return { feedUrl: feedUrl && !updateFeedProblem(feedUrl) ? feedUrl : '' };
  }

  /**
   * Stores the feed address ('' turns updates off) and answers what is now in force. Throws Error
   * naming the fix when the address lacks its scheme or host, or is plain http to another
   * computer (shared/service-url.ts updateFeedProblem); nothing is stored then.
   */
  save(next: UpdateSettings): UpdateSettings {
    const feedUrl = next.feedUrl.trim().replace(/\/+$/, '');
    const problem = feedUrl === '' ? undefined : updateFeedProblem(feedUrl);
    if (problem) throw new Error(`The update feed address cannot be used: ${problem}.`);
    this.store.set(UPDATES_KEY, { feedUrl });
    return this.get();
  }
}
