// The update tests' kit (main/updates/): an installed app's electron-updater under plain Node
// (node-updater.ts) with spies, Updates reading the local service's signed feed, and a wait for
// its status to settle. Installing is never run: quitAndInstall is a spy.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, vi } from 'vitest';
import type { TestService } from '../../e2e/service/testing.js';
import type { UpdaterPort, UpdatesOptions, UpdateStatus } from '../updates/updates.js';
import { Updates } from '../updates/updates.js';
import type { NodeHttp } from './node-updater.js';
import { nodeUpdater } from './node-updater.js';

const folders: string[] = [];
afterAll(() => {
  for (const d of folders) rmSync(d, { recursive: true, force: true });
});

/** An installed 0.1.0 app's updater (electron-updater's DebUpdater) and the folders it and the app's updates keep. */
export interface InstalledApp {
  /** Makes the updater (UpdatesOptions.updater); a spy, so a test sees it was made once. */
  made: ReturnType<typeof vi.fn<() => UpdaterPort>>;
  quitAndInstall: ReturnType<typeof vi.fn>;
  /** electron-updater's folder of the installer it holds for the install. */
  pending: string;
  /** The app's updates folder (UpdateTrust.cacheDir). */
  cacheDir: string;
  /** The root the app ships (UpdateTrust.rootPath): the feed's, copied by updatesFor. */
  rootPath: string;
  http: NodeHttp;
  /** The installers electron-updater holds now (file names). */
  held(): string[];
}

/**
 * A real electron-updater updater for an installed 0.1.0 whose folders are fresh; given
 * `restartOf`, the same app started again (its updates folder and shipped root kept).
 */
export function installedApp(restartOf?: InstalledApp): InstalledApp {
  const root = mkdtempSync(join(tmpdir(), 'updates-test-'));
  folders.push(root);
  // Installing would run dpkg: the tests only see whether it is asked for.
  const quitAndInstall = vi.fn();
  const { updater, http, pending } = nodeUpdater(root, quitAndInstall);
  const made = vi.fn(() => updater);
  return {
    made,
    quitAndInstall,
    pending,
    cacheDir: restartOf?.cacheDir ?? join(root, 'updates'),
    rootPath: restartOf?.rootPath ?? join(root, 'update-root.json'),
    http,
    held: () => (existsSync(pending) ? readdirSync(pending).filter((f) => !f.endsWith('.json')) : []),
  };
}

/** Ships `svc`'s feed root with `app` (once: later calls keep the first), as a build pins it. */
export function pinRoot(svc: TestService, app: InstalledApp): void {
  if (!existsSync(app.rootPath)) copyFileSync(svc.info.updatesRoot, app.rootPath);
}

/**
 * Updates for `app` reading the local service's signed feed (or `feedUrl`), trusting the feed's
 * root as it is at the first call (copied beside the app, as a build ships it: what the feed
 * holds later does not change it), as Linux x64 (the channel file `latest-linux.yml`, deb
 * installers); no daily timer unless `opts.every` is given.
 */
export function updatesFor(svc: TestService, app: InstalledApp, opts: Partial<UpdatesOptions> = {}): Updates {
  pinRoot(svc, app);
  return new Updates({
    version: '0.1.0',
    feedUrl: svc.info.updatesUrl,
    trust: {
      rootPath: app.rootPath,
      cacheDir: app.cacheDir,
      appId: 'com.captureuploader.desktop',
      platform: 'linux',
      arch: 'x64',
    },
    updater: app.made,
    every: () => () => {},
    ...opts,
  });
}

/** Resolves with `u`'s status once it settles (not checking, not downloading), within `timeout` ms. */
export async function settle(u: Updates, timeout = 20_000): Promise<UpdateStatus> {
  await vi.waitFor(() => expect(u.status.state).toMatch(/^(off|idle|ready|failed)$/), { timeout, interval: 25 });
  return u.status;
}
