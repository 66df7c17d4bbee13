import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { LibrarySettings } from '../../shared/ipc.js';
import type { KeyValueStore } from './settings.js';

/** The settings store's key for the library settings, apart from the service settings so saving either leaves the other. */
const LIBRARY_KEY = 'library';

/** Days a copy stays in the library after its capture completed, unless the person says otherwise. */
const DEFAULT_KEEP_DAYS = 7;

/**
 * The library folder when none is chosen: `Capture Uploader` in the user's videos
 * folder, which is `~/Movies` on macOS and `~/Videos` on Linux and Windows (Electron's
 * `app.getPath('videos')` says the same).
 */
export function defaultLibraryFolder(platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  return join(home, platform === 'darwin' ? 'Movies' : 'Videos', 'Capture Uploader');
}

/**
 * The library settings kept in the app's settings file (key `library`): the folder imports copy
 * to (an absolute path), how many days copies stay after their capture completed, and "Upload
 * straight from the card" (main/service/card-imports.ts says it with the cards: the card offer is
 * then "Upload from the card" instead of Import), and "Copy the whole card" (on unless turned off:
 * previews, thumbnails and MISC/ are copied and verified too, so a card said safe to remove may be
 * formatted). Missing fields take their defaults.
 */
export class LibrarySettingsStore {
  constructor(
    private readonly store: KeyValueStore,
    private readonly fallbackFolder: string = defaultLibraryFolder(),
  ) {}

  /** The settings in force, defaults filled in. */
  get(): LibrarySettings {
    const s = (this.store.get(LIBRARY_KEY) ?? {}) as Partial<LibrarySettings>;
    return {
      library: s.library || this.fallbackFolder,
      keepDays: typeof s.keepDays === 'number' && s.keepDays >= 0 ? s.keepDays : DEFAULT_KEEP_DAYS,
      uploadFromCard: s.uploadFromCard === true,
      wholeCard: s.wholeCard !== false,
    };
  }

  /** Stores the settings; the folder is kept as an absolute path. Answers what is now in force. */
  save(next: LibrarySettings): LibrarySettings {
    this.store.set(LIBRARY_KEY, {
      ...next,
      library: resolve(next.library.trim()),
      wholeCard: next.wholeCard ?? this.get().wholeCard,
    });
    return this.get();
  }
}
