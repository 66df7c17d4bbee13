// The app's updates (docs/decisions/0017-updates.md, docs/decisions/0036-updates-tuf.md): check the signed
// feed at start and once a day, download in the background, and install only when the app quits,
// after quit's drain rules (main.ts, "before-quit") have stopped the engine, so no part is on the
// wire. What is checked, downloaded and installed is what the feed's TUF metadata sign
// (signed-feed.ts); electron-updater, driven through UpdaterPort, reads only the verified files
// on a loopback feed (loopback-feed.ts) and does the platform's install. Every step has its
// deadline (docs/desktop-app.md, "Updates"): a check ends within CHECK_DEADLINE_MS with a result,
// a download gives up on silence or a crawl, and the daily schedule never waits for either.
// This module does not import `electron` or electron-updater: the app passes electron-updater's
// `autoUpdater`, the tests an updater over Node's http.
import { createReadStream, rmSync } from 'node:fs';
import type { TargetFile } from 'tuf-js';
import { whenAt } from '../../shared/when.js';
import type { FeedLimits } from './feed-fetch.js';
import { FEED_LIMITS, seconds } from './feed-fetch.js';
import { LoopbackFeed } from './loopback-feed.js';
import type { SignedRelease } from './signed-feed.js';
import { SignedFeed, UpdateRefused, channelFileName, installerKind } from './signed-feed.js';

/** What electron-updater says about a release: its version (semver). */
interface UpdateInfoLike {
  version: string;
}

/**
 * The part of electron-updater's AppUpdater this module uses. `checkForUpdates` resolves once
 * the feed was read (emitting `update-available` or `update-not-available` first) and rejects
 * when it cannot be read; `downloadUpdate` resolves to the downloaded files' paths once the
 * installer is downloaded and its SHA-512 matches the channel file's, and rejects otherwise.
 */
export interface UpdaterPort {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  /** electron-updater never installs an older version unless told; said explicitly here. */
  allowDowngrade?: boolean;
  /** Differential downloads fetch blockmaps the signed metadata do not list: off. */
  disableDifferentialDownload?: boolean;
  logger: { info(m: string): void; warn(m: string): void; error(m: string): void } | null;
  setFeedURL(options: { provider: 'generic'; url: string }): void;
  /** False when this is no installed app (run from a checkout): then nothing is checked. */
  isUpdaterActive?(): boolean;
  /** Resolves to null when the updater declines to check (not an installed app). */
  checkForUpdates(): Promise<unknown>;
  downloadUpdate(): Promise<unknown>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
  on(event: 'update-available' | 'update-not-available', listener: (info: UpdateInfoLike) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/**
 * Where updates stand, for the about box, the tray, Settings and the support report:
 * - `off`: no feed address in the settings, no root in the build, or not the installed app (`problem` says which);
 * - `idle`: the last check found nothing newer;
 * - `checking` (at most CHECK_DEADLINE_MS), `downloading` (`next` is the version found);
 * - `ready`: `next` is downloaded, verified against its signed length and hashes, and installs when the app quits;
 * - `failed`: the last check or download failed, `problem` says why (no address's query or
 *   credentials in it); nothing is ready; the next daily check tries again.
 */
export interface UpdateStatus {
  /** The running version (semver). */
  version: string;
  state: 'off' | 'idle' | 'checking' | 'downloading' | 'ready' | 'failed';
  next: string | null;
  problem: string | null;
  /** When the last check ended (ISO 8601), or null before the first. */
  checkedAt: string | null;
}

/** One day (ms): how often the feed is read again while the app runs. */
export const CHECK_EVERY_MS = 24 * 60 * 60 * 1000;
/** A check (the signed metadata, the channel file, electron-updater's reading of it) ends within this (ms). */
export const CHECK_DEADLINE_MS = 60_000;

/** The trust the app starts from and where it keeps what it verified. */
interface UpdateTrust {
  /** The root metadata the app ships (`assets/update-root.json` in the asar); '' or missing: updates off. */
  rootPath: string;
  /** The app's updates folder (`<userData>/updates`): verified metadata and downloads. */
  cacheDir: string;
  /** The app's id (electron-builder.yml `appId`). */
  appId: string;
  /** The platform and architecture (default: this process's), for the channel file's name. */
  platform?: NodeJS.Platform;
  arch?: string;
}

/** Options of {@link Updates}. */
export interface UpdatesOptions {
  /** The running version (semver). */
  version: string;
  /** The feed's address (a TUF repository's folder), '' for updates off. */
  feedUrl: string;
  trust: UpdateTrust;
  /** Makes the updater; called once, and only when the feed is set. */
  updater: () => UpdaterPort;
  /** Told every change of the status. */
  onChange?: (status: UpdateStatus) => void;
  log?: { info(m: string): void; warn(m: string): void };
  /** Runs `fn` every `ms` (default: an unref'd setInterval); answers how to stop it. */
  every?: (ms: number, fn: () => void) => () => void;
  /** Between two checks (ms), default {@link CHECK_EVERY_MS}. */
  intervalMs?: number;
  /** The check's deadline (ms, default CHECK_DEADLINE_MS) and the feed's bounds (default FEED_LIMITS); tests shorten them. */
  checkDeadlineMs?: number;
  limits?: Partial<FeedLimits>;
  /** Told of every request to the feed as it ends (file, body bytes), for the support log. */
  onRequest?: (file: string, bytes: number) => void;
}

/**
 * Removes what may be secret from a text about an address: the user and password before `@`
 * and everything from `?` (a feed behind a token carries it there).
 */
function scrubAddresses(text: string): string {
  return text.replace(/(https?:\/\/)[^/\s@]*@/gi, '$1').replace(/(https?:\/\/[^\s?#"']*)[?#][^\s"']*/gi, '$1');
}

const defaultEvery = (ms: number, fn: () => void) => {
  const t = setInterval(fn, ms);
  t.unref();
  return () => clearInterval(t);
};

/** `work`, or the signal's reason once it aborts, whichever comes first (work that ignores the signal is left behind). */
function until<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener('abort', onAbort), reject(e as Error)),
    );
  });
}

/** An AbortSignal that aborts with `reason` after `ms`, or with `parent`'s reason when it aborts first; `clear()` stops its timer. */
function deadline(ms: number, reason: Error, parent: AbortSignal): { signal: AbortSignal; clear(): void } {
  const ac = new AbortController();
  const t = setTimeout(() => ac.abort(reason), ms);
  return { signal: AbortSignal.any([ac.signal, parent]), clear: () => clearTimeout(t) };
}

/** Checks, downloads and installs updates (see the file's comment); the status is in `status`. */
export class Updates {
  private current: UpdateStatus;
  private updater: UpdaterPort | undefined;
  private running: Promise<UpdateStatus> | undefined;
  private stopTimer: (() => void) | undefined;
  private found: string | null = null;
  /** The installer electron-updater holds ready, and its signed entry, checked again before the install. */
  private pending: { path: string; target: TargetFile } | undefined;
  private readonly limits: FeedLimits;
  /** Which check is current: a check's report after a newer one started (the feed changed) is dropped. */
  private generation = 0;
  /** Ends the current check or download at once (the feed address changed). */
  private cancel: AbortController | undefined;

  constructor(private readonly opts: UpdatesOptions) {
    this.current = { version: opts.version, state: 'off', next: null, problem: null, checkedAt: null };
    this.limits = { ...FEED_LIMITS, ...opts.limits };
  }

  /** The status now. */
  get status(): UpdateStatus {
    return { ...this.current };
  }

  /**
   * Starts: with a feed address and a root in the build, makes the updater, checks at once and
   * every `intervalMs`; otherwise stays `off` (saying why) and makes nothing. Never throws: a
   * failed check is the status `failed`.
   */
  start(): void {
    if (!this.opts.feedUrl || this.updater) return;
    if (!this.opts.trust.rootPath) {
      this.set({
        state: 'off',
        problem:
          'this build carries no update root (assets/update-root.json), so no update could be trusted: see "Publishing a signed update" in docs/desktop-app.md.',
      });
      return;
    }
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
    u.allowDowngrade = false;
    u.disableDifferentialDownload = true;
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
    void this.check();
    this.schedule();
  }

  private schedule(): void {
    this.stopTimer = (this.opts.every ?? defaultEvery)(this.opts.intervalMs ?? CHECK_EVERY_MS, () => void this.check());
  }

  /**
   * Follows another feed address from now on (the Settings screen, applied at once): '' turns
   * updates off (the daily check stops, the status is `off`); an address checks it at once and
   * daily. A check or download of the old address under way is ended at once (nothing it would
   * say is shown). A version already downloaded stays ready to install at quit. Never throws.
   */
  setFeed(feedUrl: string): void {
    if (feedUrl === this.opts.feedUrl) return;
    this.opts.feedUrl = feedUrl;
    this.stop();
    if (this.current.state === 'ready') return;
    // A check of the old address under way is ended, and what it would still say is dropped.
    this.cancel?.abort(new UpdateRefused('the feed address changed', 'feed'));
    this.generation++;
    this.running = undefined;
    if (!feedUrl) {
      this.set({ state: 'off', next: null, problem: null });
      return;
    }
    if (!this.updater) return this.start();
    void this.check();
    this.schedule();
  }

  /** Stops the daily check. */
  stop(): void {
    this.stopTimer?.();
    this.stopTimer = undefined;
  }

  /**
   * Reads the signed feed and, when it offers a newer version, downloads it; resolves to the
   * status after. A check while one runs joins it: each of its steps is bounded (the check by
   * CHECK_DEADLINE_MS, a download by the feed's silence and rate bounds), so what is joined always
   * ends. Once a version is ready nothing more is checked (it installs at quit, and the next start
   * checks again). Never rejects.
   */
  check(): Promise<UpdateStatus> {
    const u = this.updater;
    if (!u || this.current.state === 'ready' || !this.opts.feedUrl) return Promise.resolve(this.status);
    if (!this.running) {
      const gen = ++this.generation;
      this.cancel = new AbortController();
      const run = this.run(u, gen, this.cancel.signal).finally(() => {
        if (gen === this.generation) this.running = undefined;
      });
      this.running = run;
    }
    return this.running;
  }

  private async run(u: UpdaterPort, gen: number, cancel: AbortSignal): Promise<UpdateStatus> {
    // What this check says is said only while it is the current one.
    const set = (patch: Partial<UpdateStatus>) => (gen === this.generation ? this.set(patch) : this.status);
    // electron-updater declines to check at all when the app runs from a checkout: there is no
    // installer to replace, so the feed is not read either.
    if (u.isUpdaterActive && !u.isUpdaterActive())
      return set({ state: 'off', next: null, problem: 'they apply to the installed app only.' });
    this.found = null;
    set({ state: 'checking', next: null, problem: null });
    const loopback = new LoopbackFeed();
    try {
      return await this.checkAndDownload(u, loopback, set, cancel);
    } finally {
      await loopback.close();
    }
  }

  private async checkAndDownload(
    u: UpdaterPort,
    loopback: LoopbackFeed,
    set: (patch: Partial<UpdateStatus>) => UpdateStatus,
    cancel: AbortSignal,
  ): Promise<UpdateStatus> {
    const checkMs = this.opts.checkDeadlineMs ?? CHECK_DEADLINE_MS;
    const trust = this.opts.trust;
    const kind = installerKind(u);
    if (!kind)
      return set({
        state: 'failed',
        problem: `Updates could not be checked: this computer's updater (${u.constructor.name}) installs no kind of file the app knows.`,
        checkedAt: this.now(),
      });
    let feed: SignedFeed;
    let release: SignedRelease;
    const checkEnds = deadline(
      checkMs,
      new UpdateRefused(`the feed did not answer within ${seconds(checkMs)}`, 'slow'),
      cancel,
    );
    try {
      feed = new SignedFeed({
        feedUrl: this.opts.feedUrl,
        rootPath: trust.rootPath,
        cacheDir: trust.cacheDir,
        appId: trust.appId,
        channel: channelFileName(trust.platform ?? process.platform, trust.arch ?? process.arch),
        installer: kind,
        limits: this.limits,
        onRequest: this.opts.onRequest,
      });
      const checked = await until(feed.check(checkEnds.signal), checkEnds.signal);
      if (checked.kind === 'none') return set({ state: 'idle', next: null, checkedAt: this.now() });
      release = checked.release;
      // electron-updater reads the verified channel file and decides, by its own version rules,
      // whether it is newer than this app (never an older one: allowDowngrade is off).
      await until(loopback.start(), checkEnds.signal);
      loopback.add(release.channel.name, release.channel.path);
      u.setFeedURL({ provider: 'generic', url: loopback.url });
      if ((await until(u.checkForUpdates(), checkEnds.signal)) == null)
        return set({ state: 'off', next: null, problem: 'they apply to the installed app only.' });
    } catch (err) {
      return set({
        state: 'failed',
        next: null,
        problem: `Updates could not be checked: ${this.describe(err)}.`,
        checkedAt: this.now(),
      });
    } finally {
      checkEnds.clear();
    }
    const next = this.found;
    if (!next) return set({ state: 'idle', next: null, checkedAt: this.now() });
    if (next !== release.version)
      return set({
        state: 'failed',
        next: null,
        problem: `Updates could not be checked: ${release.channel.name} names version ${next}, its signed entry ${release.version}.`,
        checkedAt: this.now(),
      });
    set({ state: 'downloading', next, checkedAt: this.now() });
    // The download's own bound, beyond the fetcher's per-request ones: what the slowest rate the
    // feed may send at allows for the installer's signed length, twice (tuf-js's copy, then
    // electron-updater's read of the loopback feed).
    const allowMs = this.limits.graceMs + (release.installer.length / this.limits.minBytesPerSecond) * 1000;
    const downloadEnds = deadline(
      2 * allowMs,
      new UpdateRefused(`it did not arrive within ${seconds(2 * allowMs)}`, 'slow'),
      cancel,
    );
    try {
      const path = await until(feed.download(release, downloadEnds.signal), downloadEnds.signal);
      loopback.add(release.installer.path, path);
      const files = (await until(u.downloadUpdate(), downloadEnds.signal)) as unknown;
      const paths = (Array.isArray(files) ? files : []).filter(
        (p): p is string => typeof p === 'string' && !p.endsWith('.blockmap'),
      );
      if (paths.length === 0) throw new UpdateRefused('the updater kept no installer', 'missing');
      for (const p of paths) await this.verify(p, release.installer);
      this.pending = { path: paths[0]!, target: release.installer };
      // electron-updater keeps its own copy for the install; the one verified here is not needed twice.
      rmSync(path, { force: true });
    } catch (err) {
      const refused = (err as { code?: unknown }).code === 'ERR_CHECKSUM_MISMATCH';
      return set({
        state: 'failed',
        problem: refused
          ? `Version ${next} was refused: the download does not match its signed hash, so it was deleted.`
          : `Version ${next} could not be downloaded: ${this.describe(err)}.`,
      });
    } finally {
      downloadEnds.clear();
    }
    this.opts.log?.info(`Updates: version ${next} is ready and installs when the app quits.`);
    return set({ state: 'ready' });
  }

  /** Throws UpdateRefused when the file at `path` is not `target`'s signed length and hashes. */
  private async verify(path: string, target: TargetFile): Promise<void> {
    try {
      await target.verify(createReadStream(path));
    } catch {
      throw new UpdateRefused(`${path} does not match the signed length and hashes of ${target.path}`, 'mismatch');
    }
  }

  /**
   * Called by quit once the drain rules let the app go (the engine stopped, no part on the wire):
   * with a version ready whose installer still matches its signed length and hashes, hands over
   * to the updater's installer (silent, the app not restarted) and resolves to true; otherwise
   * resolves to false and installs nothing. Never rejects.
   */
  async installOnQuit(): Promise<boolean> {
    if (this.current.state !== 'ready' || !this.updater || !this.pending) return false;
    this.stop();
    try {
      await this.verify(this.pending.path, this.pending.target);
      this.updater.quitAndInstall(true, false);
      return true;
    } catch (err) {
      this.opts.log?.warn(`Updates: version ${this.current.next} was not installed: ${this.describe(err)}`);
      return false;
    }
  }

  private now(): string {
    return new Date().toISOString();
  }

  private describe(err: unknown): string {
    return scrubAddresses(err instanceof Error ? err.message : String(err))
      .split('\n')[0]!
      .replace(/\.$/, '');
  }

  private set(patch: Partial<UpdateStatus>): UpdateStatus {
    this.current = { ...this.current, ...patch };
    this.opts.onChange?.(this.status);
    return this.status;
  }
}

/** When the last check ended, for a line: `14:02` today, `24 Nov 14:02` otherwise. */
const at = (s: UpdateStatus, now?: number) => whenAt(s.checkedAt, { now });

/**
 * The status in one line for the tray: the version, the last check's time and result, or
 * "update ready: VERSION, installs when you quit": `Version 0.1.0 · up to date (checked 14:02)`,
 * `… · checking for updates`, `… · downloading update 0.2.0`, `… · update ready: 0.2.0, installs
 * when you quit`, `… · updates could not be checked (14:02)`. `now` (ms) is for tests.
 */
export function updateLine(s: UpdateStatus, now?: number): string {
  const base = `Version ${s.version}`;
  switch (s.state) {
    case 'ready':
      return `${base} · update ready: ${s.next}, installs when you quit`;
    case 'downloading':
      return `${base} · downloading update ${s.next}`;
    case 'checking':
      return `${base} · checking for updates`;
    case 'idle':
      return `${base} · up to date (checked ${at(s, now)})`;
    case 'failed':
      return `${base} · ${s.next ? `update ${s.next} could not be downloaded` : 'updates could not be checked'} (${at(s, now)})`;
    case 'off':
      return base;
  }
}

/**
 * What the about box (and the support report) says about updates, in a sentence or two: off and
 * why; up to date, with the last check's time; checking; downloading; ready to install at quit;
 * or what failed and when, and that the next check is within a day. `now` (ms) is for tests.
 */
export function updateDetail(s: UpdateStatus, now?: number): string {
  switch (s.state) {
    case 'off':
      return s.problem
        ? `Updates are off: ${s.problem}`
        : 'Updates are off: no update feed address is set (Settings, "Updates").';
    case 'idle':
      return `Up to date: the last check (${at(s, now)}) found no newer version.`;
    case 'checking':
      return `Checking for updates (at most ${seconds(CHECK_DEADLINE_MS)})…`;
    case 'downloading':
      return `Downloading version ${s.next} in the background (found at ${at(s, now)}).`;
    case 'ready':
      return `Update ready: ${s.next}, installs when you quit, once uploads in progress have stopped. Last checked ${at(s, now)}.`;
    case 'failed':
      return `${(s.problem ?? 'Updates could not be checked.').replace(/\.$/, '')} (${at(s, now)}). The next check is within a day.`;
  }
}
