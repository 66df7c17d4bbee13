// The app's side of The Update Framework (docs/decisions/0036-updates-tuf.md), with tuf-js: the root
// the app ships is the only trust it starts from; each check fetches and verifies the newer roots,
// then timestamp, snapshot and targets with their signatures, thresholds, versions and expiry as
// the TUF specification's client workflow gives them (§5), keeping what it verified in the app's
// updates folder so an older version offered later is refused (rollback). A release is this
// platform's channel file (`latest-linux.yml`…) and the installer it names, both targets: their
// lengths and SHA-256/512 come from the signed targets metadata, so nothing else is ever read.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TargetFile } from 'tuf-js';
import { Updater } from 'tuf-js';
import type { FeedLimits } from './feed-fetch.js';
import { FeedFetcher, FeedHttpError, FeedLengthError, FeedFetchError } from './feed-fetch.js';

/** What a SignedFeed is made with. */
export interface SignedFeedOptions {
  /** The feed's address (the repository's folder: `metadata/` and `targets/` under it); may carry a query. */
  feedUrl: string;
  /** The root metadata the app ships (`assets/update-root.json` in the asar): the trust anchor. */
  rootPath: string;
  /** The app's updates folder: verified metadata in `metadata/`, downloads in `downloads/`. */
  cacheDir: string;
  /** The app's id (electron-builder.yml `appId`): a target for another app is refused. */
  appId: string;
  /** This platform's channel file (channelFileName). */
  channel: string;
  /** The installer's extension this platform's updater installs (installerKind): `deb`, `AppImage`, `exe`, `zip`. */
  installer: string;
  limits?: Partial<FeedLimits>;
  /** Told of every request to the feed as it ends (file, body bytes). */
  onRequest?: (file: string, bytes: number) => void;
}

/** A release the signed metadata offer: its version, its channel file (verified, on disk) and its installer's signed entry. */
export interface SignedRelease {
  version: string;
  /** The channel file's name and verified bytes' path. */
  channel: { name: string; path: string };
  /** The installer's target: name (`path`), length and hashes, from the signed targets. */
  installer: TargetFile;
}

/** A check's answer: a release, or none for this platform. */
export type FeedCheck = { kind: 'none' } | { kind: 'release'; release: SignedRelease };

/** A check or download that failed for a reason worth saying (`message`, a person's words, no query of an address). */
export class UpdateRefused extends Error {
  override readonly name = 'UpdateRefused';
  constructor(
    message: string,
    /** Which TUF attack or fault the reason is (docs/desktop-app.md's table). */
    readonly kind:
      | 'out-of-date'
      | 'signature'
      | 'rollback'
      | 'mismatch'
      | 'endless'
      | 'elsewhere'
      | 'slow'
      | 'wrong-software'
      | 'missing'
      | 'feed',
  ) {
    super(message);
  }
}

/** Version of a root metadata file, or 0 when it cannot be read. */
function rootVersion(file: string): number {
  try {
    const v = (JSON.parse(readFileSync(file, 'utf8')) as { signed?: { version?: unknown } }).signed?.version;
    return typeof v === 'number' ? v : 0;
  } catch {
    return 0;
  }
}

/** The channel file electron-updater reads on this platform and architecture (its Provider's names). */
export function channelFileName(platform: NodeJS.Platform, arch: string): string {
  if (platform === 'darwin') return 'latest-mac.yml';
  if (platform === 'linux') return arch === 'x64' ? 'latest-linux.yml' : `latest-linux-${arch}.yml`;
  return 'latest.yml';
}

/**
 * The installer's extension the updater installs, from electron-updater's updater class
 * (`autoUpdater` is one per platform and package type); undefined for one it does not know.
 */
export function installerKind(updater: object): string | undefined {
  const byClass: Record<string, string> = {
    NsisUpdater: 'exe',
    MacUpdater: 'zip',
    AppImageUpdater: 'AppImage',
    DebUpdater: 'deb',
    RpmUpdater: 'rpm',
    PacmanUpdater: 'pacman',
  };
  for (let p: object | null = updater; p; p = Object.getPrototypeOf(p) as object | null) {
    const kind = byClass[(p.constructor as { name?: string } | undefined)?.name ?? ''];
    if (kind) return kind;
  }
  return undefined;
}

/**
 * Words for what went wrong in tuf-js or the fetcher, said as the reason a check or download was
 * refused. tuf-js passes some failures on as text inside its own error, hence the patterns.
 */
function refusal(err: unknown, fetched: Error | undefined): UpdateRefused {
  if (err instanceof UpdateRefused) return err;
  const e = fetched ?? (err as Error);
  if (e instanceof FeedFetchError)
    return new UpdateRefused(
      e.message,
      e.kind === 'redirect' || e.kind === 'elsewhere' ? 'elsewhere' : e.kind === 'network' ? 'feed' : 'slow',
    );
  if (e instanceof FeedLengthError) return new UpdateRefused(e.message, 'endless');
  if (e instanceof FeedHttpError) return new UpdateRefused(e.message, 'feed');
  const text = `${(err as Error)?.message ?? String(err)}`;
  if (/is expired/.test(text))
    return new UpdateRefused('the feed is out of date (its signed metadata have expired)', 'out-of-date');
  const signed = /(\w+) was signed by (\d+)\/(\d+) keys/.exec(text);
  if (signed)
    return new UpdateRefused(
      `the feed's ${signed[1]} metadata are not signed by this app's publisher (${signed[2]} of the ${signed[3]} signatures needed)`,
      'signature',
    );
  if (
    /less than current version|Expected version|does not match snapshot version|Snapshot version doesn't match/.test(
      text,
    )
  )
    return new UpdateRefused(
      `the feed offers older or mismatched metadata than this computer has seen (${text.replace(/^.*Error: /, '')})`,
      'rollback',
    );
  if (/Expected (hash|length)|Max length reached/.test(text))
    return new UpdateRefused('a file of the feed does not match its signed length and hash', 'mismatch');
  return new UpdateRefused(`the feed cannot be read: ${text.split('\n')[0]}`, 'feed');
}

/** A TUF client for one check (tuf-js's trusted set is fixed at its start, as the specification's client workflow §5.1 says). */
export class SignedFeed {
  private readonly updater: Updater;
  private readonly fetcher: FeedFetcher;
  private readonly metadataDir: string;
  readonly downloadsDir: string;

  /** Prepares the metadata folder (the newer of the shipped and the kept root); throws Error when the shipped root cannot be read. */
  constructor(private readonly o: SignedFeedOptions) {
    this.metadataDir = join(o.cacheDir, 'metadata');
    this.downloadsDir = join(o.cacheDir, 'downloads');
    mkdirSync(this.metadataDir, { recursive: true });
    mkdirSync(this.downloadsDir, { recursive: true });
    const kept = join(this.metadataDir, 'root.json');
    // The shipped root is trusted by being in the signed app; a kept one only as far as its chain
    // was verified. A newer app may ship a newer root than the one kept.
    if (rootVersion(o.rootPath) === 0) throw new Error(`The update root ${o.rootPath} cannot be read.`);
    if (!existsSync(kept) || rootVersion(kept) < rootVersion(o.rootPath)) writeFileSync(kept, readFileSync(o.rootPath));
    const base = new URL(o.feedUrl);
    const path = base.pathname.replace(/\/+$/, '');
    this.fetcher = new FeedFetcher({
      feedUrl: o.feedUrl,
      tmpDir: this.downloadsDir,
      limits: o.limits,
      onRequest: o.onRequest,
    });
    this.updater = new Updater({
      metadataDir: this.metadataDir,
      metadataBaseUrl: `${base.origin}${path}/metadata`,
      targetBaseUrl: `${base.origin}${path}/targets`,
      targetDir: this.downloadsDir,
      fetcher: this.fetcher,
    });
  }

  /**
   * Refreshes the signed metadata (roots, timestamp, snapshot, targets) and answers this
   * platform's release: the channel file (downloaded and verified) and its installer's signed
   * entry, or none when the feed has no channel file for this platform. `signal` ends it at once
   * (its reason, an Error, is then what is thrown). Throws UpdateRefused.
   */
  async check(signal?: AbortSignal): Promise<FeedCheck> {
    this.fetcher.signal = signal;
    try {
      await this.updater.refresh();
      const channel = await this.updater.getTargetInfo(this.o.channel);
      if (!channel) return { kind: 'none' };
      this.sameApp(channel);
      const version = channel.custom.version;
      const installers = Array.isArray(channel.custom.installers) ? channel.custom.installers.map(String) : [];
      if (typeof version !== 'string')
        throw new UpdateRefused(`the feed's ${this.o.channel} names no version`, 'missing');
      const name = installers.find((n) => n.toLowerCase().endsWith(`.${this.o.installer.toLowerCase()}`));
      if (!name)
        throw new UpdateRefused(
          `version ${version} has no .${this.o.installer} installer, the kind this computer installs`,
          'missing',
        );
      const installer = await this.updater.getTargetInfo(name);
      if (!installer)
        throw new UpdateRefused(`${this.o.channel} names ${name}, which the signed targets do not list`, 'missing');
      this.sameApp(installer);
      if (installer.custom.version !== version)
        throw new UpdateRefused(
          `${name} is signed for version ${String(installer.custom.version)}, not ${version}`,
          'mismatch',
        );
      const path = join(this.downloadsDir, this.o.channel);
      if (!(await this.updater.findCachedTarget(channel, path))) await this.updater.downloadTarget(channel, path);
      return { kind: 'release', release: { version, channel: { name: this.o.channel, path }, installer } };
    } catch (err) {
      throw refusal(err, this.fetcher.problem);
    }
  }

  /**
   * Downloads the installer of `release` (tuf-js: at most its signed length, then its length
   * and hashes checked) into the downloads folder, or answers the copy already there when it
   * still verifies. Answers its path. Throws UpdateRefused; nothing unverified is left.
   */
  async download(release: SignedRelease, signal?: AbortSignal): Promise<string> {
    this.fetcher.signal = signal;
    const path = join(this.downloadsDir, release.installer.path);
    try {
      return (
        (await this.updater.findCachedTarget(release.installer, path)) ??
        (await this.updater.downloadTarget(release.installer, path))
      );
    } catch (err) {
      throw refusal(err, this.fetcher.problem);
    }
  }

  private sameApp(t: TargetFile): void {
    if (t.custom.appId !== this.o.appId)
      throw new UpdateRefused(
        `the feed's ${t.path} is signed for another app (${typeof t.custom.appId === 'string' ? t.custom.appId : 'none named'}), not ${this.o.appId}`,
        'wrong-software',
      );
  }
}
