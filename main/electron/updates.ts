// The app's updates (docs/decisions/updates.md): check the generic feed at start and once a day,
// download in the background, and install only when the app quits, after quit's drain rules
// (main.ts, "before-quit") have stopped the engine, so no part is on the wire. This module does
// not import `electron` or electron-updater: it drives whatever it is given through UpdaterPort,
// electron-updater's `autoUpdater` in the app, an updater over Node's http in the tests.

/** What electron-updater says about a release: its version (semver). */
export interface UpdateInfoLike {
  version: string;
}

/**
 * The part of electron-updater's AppUpdater this module uses. `checkForUpdates` resolves once
 * the feed was read (emitting `update-available` or `update-not-available` first) and rejects
 * when it cannot be read; `downloadUpdate` resolves once the installer is downloaded and its
 * SHA-512 matches the feed's, and rejects otherwise (the file is removed then).
 */
export interface UpdaterPort {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  logger: { info(m: string): void; warn(m: string): void; error(m: string): void } | null;
  setFeedURL(options: { provider: 'generic'; url: string }): void;
  /** Resolves to null when the updater declines to check (not an installed app). */
  checkForUpdates(): Promise<unknown>;
  downloadUpdate(): Promise<unknown>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
  on(event: 'update-available' | 'update-not-available', listener: (info: UpdateInfoLike) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/**
 * Where updates stand, for the about box and the tray:
 * - `off`: no feed address in the settings, or not the installed app (`problem` says so);
 * - `idle`: the last check found nothing newer;
 * - `checking`, `downloading` (`next` is the version found);
 * - `ready`: `next` is downloaded, its hash checked, and installs when the app quits;
 * - `failed`: the last check or download failed, `problem` says why (no addresses' queries or
 *   credentials in it); nothing is ready.
 */
export interface UpdateStatus {
  /** The running version (semver). */
  version: string;
  state: 'off' | 'idle' | 'checking' | 'downloading' | 'ready' | 'failed';
  next: string | null;
  problem: string | null;
  /** When the last check finished (ISO 8601), or null before the first. */
  checkedAt: string | null;
}

/** One day (ms): how often the feed is read again while the app runs. */
export const CHECK_EVERY_MS = 24 * 60 * 60 * 1000;

/** Options of {@link Updates}. */
export interface UpdatesOptions {
  /** The running version (semver). */
  version: string;
  /** The feed's address (generic provider), '' for updates off. */
  feedUrl: string;
  /** Makes the updater; called once, and only when the feed is set. */
  updater: () => UpdaterPort;
  /** Told every change of the status. */
  onChange?: (status: UpdateStatus) => void;
  log?: { info(m: string): void; warn(m: string): void };
  /** Runs `fn` every `ms` (default: an unref'd setInterval); answers how to stop it. */
  every?: (ms: number, fn: () => void) => () => void;
  /** Between two checks (ms), default {@link CHECK_EVERY_MS}. */
  intervalMs?: number;
}

/**
 * Removes what may be secret from a text about an address: the user and password before `@`
 * and everything from `?` (a feed behind a token carries it there).
 */
export function scrubAddresses(text: string): string {
  return text.replace(/(https?:\/\/)[^/\s@]*@/gi, '$1').replace(/(https?:\/\/[^\s?#"']*)[?#][^\s"']*/gi, '$1');
}

const defaultEvery = (ms: number, fn: () => void) => {
  const t = setInterval(fn, ms);
  t.unref();
  return () => clearInterval(t);
};

/** Checks, downloads and installs updates (see the file's comment); the status is in `status`. */
export class Updates {
  private current: UpdateStatus;
  private updater: UpdaterPort | undefined;
  private running: Promise<UpdateStatus> | undefined;
  private stopTimer: (() => void) | undefined;
  private found: string | null = null;

  constructor(private readonly opts: UpdatesOptions) {
    this.current = { version: opts.version, state: 'off', next: null, problem: null, checkedAt: null };
  }

  /** The status now. */
  get status(): UpdateStatus {
    return { ...this.current };
  }

  /**
   * Starts: with a feed address, makes the updater, checks at once and every `intervalMs`; without
   * one, stays `off` and makes nothing. Never throws: a failed check is the status `failed`.
   */
  start(): void {
    if (!this.opts.feedUrl || this.updater) return;
    let u: UpdaterPort;
    try {
      u = this.opts.updater();
    } catch (err) {
      // An updater that cannot even be made must not stop the app (uploads matter more).
      this.set({ state: 'off', problem: `the updater could not be started: ${this.describe(err)}` });
      return;
    }
    this.updater = u;
    // The download is started here, not by electron-updater on its own, so that its failure is
    // awaited (and shown) rather than an unhandled rejection; installing is left to installOnQuit.
    u.autoDownload = false;
    u.autoInstallOnAppQuit = false;
    const log = this.opts.log;
    u.logger = {
      info: (m) => log?.info(`Updates: ${scrubAddresses(String(m))}`),
      warn: (m) => log?.warn(`Updates: ${scrubAddresses(String(m))}`),
      error: (m) => log?.warn(`Updates: ${scrubAddresses(String(m))}`),
    };
    u.on('update-available', (info) => (this.found = info.version));
    u.on('update-not-available', () => (this.found = null));
    // electron-updater also emits every failure as 'error'; check() reports it from the rejection.
    u.on('error', () => {});
    u.setFeedURL({ provider: 'generic', url: this.opts.feedUrl });
    void this.check();
    this.stopTimer = (this.opts.every ?? defaultEvery)(this.opts.intervalMs ?? CHECK_EVERY_MS, () => void this.check());
  }

  /**
   * Follows another feed address from now on (the Settings screen, applied at once): '' turns
   * updates off (the daily check stops, the status is `off`); an address checks it at once and
   * daily. A version already downloaded stays ready to install at quit. Never throws.
   */
  setFeed(feedUrl: string): void {
    if (feedUrl === this.opts.feedUrl) return;
    this.opts.feedUrl = feedUrl;
    this.stop();
    if (this.current.state === 'ready') return;
    if (!feedUrl) {
      this.set({ state: 'off', next: null, problem: null });
      return;
    }
    const u = this.updater;
    if (!u) return this.start();
    u.setFeedURL({ provider: 'generic', url: feedUrl });
    void this.check();
    this.stopTimer = (this.opts.every ?? defaultEvery)(this.opts.intervalMs ?? CHECK_EVERY_MS, () => void this.check());
  }

  /** Stops the daily check. */
  stop(): void {
    this.stopTimer?.();
    this.stopTimer = undefined;
  }

  /**
   * Reads the feed and, when it names a newer version, downloads it; resolves to the status after.
   * A check while one runs joins it; once a version is ready nothing more is checked (it installs
   * at quit, and the next start checks again). Never rejects.
   */
  check(): Promise<UpdateStatus> {
    const u = this.updater;
    if (!u || this.current.state === 'ready') return Promise.resolve(this.status);
    this.running ??= this.run(u).finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(u: UpdaterPort): Promise<UpdateStatus> {
    this.found = null;
    this.set({ state: 'checking', problem: null });
    try {
      // electron-updater answers null when it declines to check at all: an app run from a
      // checkout rather than installed has no installer to replace.
      if ((await u.checkForUpdates()) == null)
        return this.set({ state: 'off', next: null, problem: 'they apply to the installed app only.' });
    } catch (err) {
      return this.set({
        state: 'failed',
        next: null,
        problem: `The update feed could not be read: ${this.describe(err)}`,
        checkedAt: new Date().toISOString(),
      });
    }
    const next = this.found;
    if (!next) return this.set({ state: 'idle', next: null, checkedAt: new Date().toISOString() });
    this.set({ state: 'downloading', next, checkedAt: new Date().toISOString() });
    try {
      await u.downloadUpdate();
    } catch (err) {
      const refused = (err as { code?: unknown }).code === 'ERR_CHECKSUM_MISMATCH';
      return this.set({
        state: 'failed',
        problem: refused
          ? `Version ${next} was refused: the download does not match the feed's SHA-512, so it was deleted.`
          : `Version ${next} could not be downloaded: ${this.describe(err)}`,
      });
    }
    this.opts.log?.info(`Updates: version ${next} is ready and installs when the app quits.`);
    return this.set({ state: 'ready' });
  }

  /**
   * Called by quit once the drain rules let the app go (the engine stopped, no part on the wire):
   * with a version ready, hands over to the updater's installer (silent, the app not restarted)
   * and answers true; otherwise answers false and does nothing. Never throws.
   */
  installOnQuit(): boolean {
    if (this.current.state !== 'ready' || !this.updater) return false;
    this.stop();
    try {
      this.updater.quitAndInstall(true, false);
      return true;
    } catch (err) {
      this.opts.log?.warn(`Updates: version ${this.current.next} could not be installed: ${this.describe(err)}`);
      return false;
    }
  }

  private describe(err: unknown): string {
    return scrubAddresses(err instanceof Error ? err.message : String(err)).split('\n')[0]!;
  }

  private set(patch: Partial<UpdateStatus>): UpdateStatus {
    this.current = { ...this.current, ...patch };
    this.opts.onChange?.(this.status);
    return this.status;
  }
}

/**
 * The status in one line for the tray and the about box: `Version 0.1.0`,
 * `Version 0.1.0 · update 0.2.0 ready: installs when you quit`, `… · downloading update 0.2.0`,
 * `… · update check failed`.
 */
export function updateLine(s: UpdateStatus): string {
  const base = `Version ${s.version}`;
  if (s.state === 'ready') return `${base} · update ${s.next} ready: installs when you quit`;
  if (s.state === 'downloading') return `${base} · downloading update ${s.next}`;
  if (s.state === 'failed') return `${base} · update check failed`;
  return base;
}

/**
 * What the about box says about updates, in a sentence or two: off and why, up to date (with the
 * time of the check, ISO 8601), checking, downloading, ready to install at quit, or what failed.
 */
export function updateDetail(s: UpdateStatus): string {
  switch (s.state) {
    case 'off':
      return s.problem
        ? `Updates are off: ${s.problem}`
        : 'Updates are off: no update feed address is set (Settings, "Updates").';
    case 'idle':
      return `Up to date (checked ${s.checkedAt}).`;
    case 'checking':
      return 'Checking for updates…';
    case 'downloading':
      return `Downloading version ${s.next} in the background.`;
    case 'ready':
      return `Version ${s.next} is downloaded and installs when you quit, once uploads in progress have stopped.`;
    case 'failed':
      return `${s.problem} The next check is within a day.`;
  }
}
