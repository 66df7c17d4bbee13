import type { ClientRequest, RequestOptions } from 'node:http';
import { request } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DownloadOptions } from 'builder-util-runtime';
import { HttpExecutor, configureRequestOptions, configureRequestUrl } from 'builder-util-runtime';
import { DebUpdater } from 'electron-updater';
import type { AppAdapter } from 'electron-updater/out/AppAdapter.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestService } from '../../e2e/service/testing.js';
import { publishUpdate, startTestService } from '../../e2e/service/testing.js';
import type { UpdaterPort, UpdateStatus } from './updates.js';
import { CHECK_EVERY_MS, Updates, updateDetail, updateLine } from './updates.js';

// electron-updater's own updater (its GenericProvider reading the feed, its download and its
// SHA-512 check) against the local service's feed, under plain Node. Two pieces of Electron are
// replaced, as electron-updater's own tests do: the app adapter (version, folders, quit) and the
// HTTP transport (Electron's `net` becomes Node's http). DebUpdater is used on every platform: it
// downloads a whole installer and checks it, and is never asked to install here.

/** electron-updater's HttpExecutor over Node's http (the feed is on loopback, plain http). */
class NodeHttp extends HttpExecutor<ClientRequest> {
  createRequest(options: RequestOptions, callback: (response: unknown) => void): ClientRequest {
    // A fresh connection per request: the executor adds a timeout listener to each request's socket.
    return request({ ...options, agent: false }, callback);
  }
  download(url: URL, destination: string, options: DownloadOptions): Promise<string> {
    return options.cancellationToken.createPromise((resolve, reject, onCancel) => {
      const requestOptions: RequestOptions = { headers: options.headers ?? undefined };
      configureRequestUrl(url, requestOptions);
      configureRequestOptions(requestOptions);
      this.doDownload(
        requestOptions,
        {
          destination,
          options,
          onCancel,
          callback: (error) => (error ? reject(error) : resolve(destination)),
          responseHandler: null,
        },
        0,
      );
    });
  }
}

let svc: TestService;
const dirs: string[] = [];
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A real electron-updater updater for an installed 0.1.0 whose cache is in a fresh folder. */
function installed(feedUrl: string) {
  const root = mkdtempSync(join(tmpdir(), 'updates-test-'));
  dirs.push(root);
  const configPath = join(root, 'app-update.yml');
  // What electron-builder writes into the packaged app's resources for `publish: generic`.
  writeFileSync(
    configPath,
    `provider: generic\nurl: ${JSON.stringify(feedUrl)}\nupdaterCacheDirName: capture-uploader-updater\n`,
  );
  mkdirSync(join(root, 'cache'));
  const app: AppAdapter = {
    version: '0.1.0',
    name: 'Capture Uploader',
    isPackaged: true,
    appUpdateConfigPath: configPath,
    userDataPath: root,
    baseCachePath: join(root, 'cache'),
    whenReady: () => Promise.resolve(),
    relaunch: () => {},
    quit: () => {},
    onQuit: () => {},
  };
  const updater = new DebUpdater(null, app);
  (updater as unknown as { httpExecutor: HttpExecutor<ClientRequest> }).httpExecutor = new NodeHttp();
  // Installing would run dpkg: the tests only see whether it is asked for.
  const quitAndInstall = vi.fn();
  updater.quitAndInstall = quitAndInstall;
  const made = vi.fn(() => updater as unknown as UpdaterPort);
  const pending = join(root, 'cache', 'capture-uploader-updater', 'pending');
  return { made, quitAndInstall, pending };
}

/** Starts Updates and resolves with its status once it settles (not checking, not downloading). */
async function settle(u: Updates): Promise<UpdateStatus> {
  await vi.waitFor(() => expect(u.status.state).toMatch(/^(off|idle|ready|failed)$/), {
    timeout: 20_000,
    interval: 50,
  });
  return u.status;
}

describe('updates from a generic feed', () => {
  it('downloads a newer version in the background, checks its SHA-512, marks it ready and installs it only when asked at quit', async () => {
    const content = randomBytes(300 * 1024);
    const feed = await publishUpdate(svc, { version: '0.2.0', fileName: 'capture-uploader_0.2.0_amd64.deb', content });
    expect(feed.sha512).toBe(createHash('sha512').update(content).digest('base64'));
    // A feed behind a token: the token must not reach the log or the status.
    const feedUrl = `${svc.info.updatesUrl}?token=feed-s3cret`;
    const { made, quitAndInstall, pending } = installed(feedUrl);
    const logs: string[] = [];
    const changes: string[] = [];
    let every: { ms: number; fn: () => void } | undefined;
    const u = new Updates({
      version: '0.1.0',
      feedUrl,
      updater: made,
      log: { info: (m) => logs.push(m), warn: (m) => logs.push(m) },
      onChange: (s) => changes.push(s.state),
      every: (ms, fn) => ((every = { ms, fn }), () => {}),
    });
    u.start();
    const status = await settle(u);
    expect(status).toMatchObject({ state: 'ready', version: '0.1.0', next: '0.2.0', problem: null });
    expect(changes).toEqual(['checking', 'downloading', 'ready']);
    expect(updateLine(status)).toBe('Version 0.1.0 · update 0.2.0 ready: installs when you quit');
    // The installer kept for the install is the published bytes.
    const kept = readFileSync(join(pending, 'capture-uploader_0.2.0_amd64.deb'));
    expect(createHash('sha512').update(kept).digest('base64')).toBe(feed.sha512);
    // Checked at start, and again every day.
    expect(made).toHaveBeenCalledTimes(1);
    expect(every?.ms).toBe(CHECK_EVERY_MS);
    expect(CHECK_EVERY_MS).toBe(86_400_000);
    // Nothing is installed until quit hands over (after its drain rules), then silently, once.
    expect(quitAndInstall).not.toHaveBeenCalled();
    expect(u.installOnQuit()).toBe(true);
    expect(quitAndInstall).toHaveBeenCalledExactlyOnceWith(true, false);
    expect(logs.join('\n')).toMatch(/0\.2\.0/);
    expect(JSON.stringify([logs, u.status])).not.toMatch(/feed-s3cret/);
  });

  it('refuses an installer whose bytes do not match the feed’s SHA-512: nothing is kept, nothing is ready, nothing installs', async () => {
    const content = randomBytes(200 * 1024);
    const wrong = createHash('sha512')
      .update(Buffer.concat([content, Buffer.from('tampered')]))
      .digest('base64');
    await publishUpdate(svc, {
      version: '0.3.0',
      fileName: 'capture-uploader_0.3.0_amd64.deb',
      content,
      sha512: wrong,
    });
    const { made, quitAndInstall, pending } = installed(svc.info.updatesUrl);
    const u = new Updates({ version: '0.1.0', feedUrl: svc.info.updatesUrl, updater: made, every: () => () => {} });
    u.start();
    const status = await settle(u);
    expect(status).toMatchObject({ state: 'failed', next: '0.3.0' });
    expect(status.problem).toBe(
      "Version 0.3.0 was refused: the download does not match the feed's SHA-512, so it was deleted.",
    );
    expect(updateLine(status)).toBe('Version 0.1.0 · update check failed');
    expect(updateDetail(status)).toBe(
      "Version 0.3.0 was refused: the download does not match the feed's SHA-512, so it was deleted. The next check is within a day.",
    );
    expect(existsSync(pending) ? readdirSync(pending).filter((f) => f.endsWith('.deb')) : []).toEqual([]);
    expect(u.installOnQuit()).toBe(false);
    expect(quitAndInstall).not.toHaveBeenCalled();
  });

  it('with the feed naming the running version, says so and downloads nothing; the daily check reads the feed again', async () => {
    await publishUpdate(svc, {
      version: '0.1.0',
      fileName: 'capture-uploader_0.1.0_amd64.deb',
      content: randomBytes(1024),
    });
    const { made, pending } = installed(svc.info.updatesUrl);
    let daily: (() => void) | undefined;
    const u = new Updates({
      version: '0.1.0',
      feedUrl: svc.info.updatesUrl,
      updater: made,
      every: (_ms, fn) => ((daily = fn), () => {}),
    });
    u.start();
    const first = await settle(u);
    expect(first).toMatchObject({ state: 'idle', next: null });
    expect(updateDetail(first)).toMatch(/^Up to date \(checked \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\)\.$/);
    expect(existsSync(pending)).toBe(false);
    // A day later the feed names 0.2.1: the daily check finds and downloads it.
    await publishUpdate(svc, {
      version: '0.2.1',
      fileName: 'capture-uploader_0.2.1_amd64.deb',
      content: randomBytes(4096),
    });
    daily!();
    await vi.waitFor(() => expect(u.status).toMatchObject({ state: 'ready', next: '0.2.1' }), {
      timeout: 20_000,
      interval: 50,
    });
    expect(made).toHaveBeenCalledTimes(1);
  });

  it('an unreachable feed is a failed check, nothing ready', async () => {
    const dead = `${svc.info.updatesUrl.replace(/\/updates$/, '')}/nowhere`;
    const { made } = installed(dead);
    const u = new Updates({ version: '0.1.0', feedUrl: dead, updater: made, every: () => () => {} });
    u.start();
    const status = await settle(u);
    expect(status).toMatchObject({ state: 'failed', next: null });
    expect(status.problem).toMatch(/^The update feed could not be read: /);
    expect(u.installOnQuit()).toBe(false);
  });

  it('an empty feed address is updates off: no updater is made and nothing is read', () => {
    const made = vi.fn();
    const u = new Updates({ version: '0.1.0', feedUrl: '', updater: made });
    u.start();
    expect(u.status).toEqual({ version: '0.1.0', state: 'off', next: null, problem: null, checkedAt: null });
    expect(made).not.toHaveBeenCalled();
    expect(u.installOnQuit()).toBe(false);
    expect(updateLine(u.status)).toBe('Version 0.1.0');
    expect(updateDetail(u.status)).toBe('Updates are off: no update feed address is set (Settings, "Updates").');
  });

  it('follows a feed address set in Settings at once: checked then, and off again when emptied', async () => {
    // A feed that answers nothing: the check fails, nothing is downloaded (a version ready stays ready).
    const dead = `${svc.info.updatesUrl.replace(/\/updates$/, '')}/nowhere`;
    const { made } = installed(dead);
    let timers = 0;
    const u = new Updates({
      version: '0.1.0',
      feedUrl: '',
      updater: made,
      every: () => (timers++, () => void timers--),
    });
    u.start();
    expect(made).not.toHaveBeenCalled();
    u.setFeed(dead);
    expect(made).toHaveBeenCalledTimes(1);
    expect(timers).toBe(1);
    expect((await settle(u)).state).toBe('failed');
    u.setFeed('');
    expect(u.status).toMatchObject({ state: 'off', next: null, problem: null });
    expect(timers).toBe(0);
  });
});
