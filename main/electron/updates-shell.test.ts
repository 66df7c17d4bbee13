import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestService } from '../../e2e/service/testing.js';
import { publishUpdate, startTestService } from '../../e2e/service/testing.js';
import { rec, storeSeed, quitShell } from './electron-stand-in.js';

// The shell with an update feed in its settings, under the Electron stand-in, against the local
// service's signed feed: the build's root is in the app folder (assets/update-root.json), the
// signed metadata are checked by main/updates/, and electron-updater's autoUpdater is replaced by
// a stand-in that reads the feed it is given, as the generic provider does (updates.test.ts runs
// the real one). What is checked is the shell's part: the root it pins, electron-updater pointed
// at the loopback feed only, "update ready" with the version in the tray, the about box and the
// support report, and the install handed over only after quit's drain let the app go.
const userData = mkdtempSync(join(tmpdir(), 'shell-updates-'));
const appPath = mkdtempSync(join(tmpdir(), 'shell-updates-app-'));
let svc: TestService;

const fake = vi.hoisted(() => ({
  updater: undefined as
    | undefined
    | {
        feeds: { provider: string; url: string }[];
        checks: number;
        autoDownload: boolean;
        autoInstallOnAppQuit: boolean;
        downloadUpdate: ReturnType<typeof vi.fn>;
        quitAndInstall: ReturnType<typeof vi.fn>;
      },
}));

vi.mock('electron', async () => (await import('./electron-stand-in.js')).electronModule(userData, { appPath }));
vi.mock('electron-store', async () => (await import('./electron-stand-in.js')).electronStoreModule);
vi.mock('electron-updater', async () => {
  const { writeFileSync } = await import('node:fs');
  const { join: joinPath } = await import('node:path');
  // Named as electron-updater's Debian updater is: the shell's installer kind comes from the class.
  class DebUpdater {
    autoDownload = true;
    autoInstallOnAppQuit = true;
    logger: unknown = null;
    feeds: { provider: string; url: string }[] = [];
    checks = 0;
    private listeners = new Map<string, ((x: unknown) => void)[]>();
    private files: string[] = [];
    setFeedURL(o: { provider: string; url: string }) {
      this.feeds.push(o);
    }
    isUpdaterActive() {
      return true;
    }
    on(e: string, l: (x: unknown) => void) {
      this.listeners.set(e, [...(this.listeners.get(e) ?? []), l]);
      return this;
    }
    async checkForUpdates() {
      this.checks++;
      const yml = await (await fetch(`${this.feeds.at(-1)!.url}/latest-linux.yml`)).text();
      const version = /^version: "?([^"\n]+)"?$/m.exec(yml)![1]!;
      this.files = [...yml.matchAll(/- url: "?([^"\n]+)"?/g)].map((m) => m[1]!);
      for (const l of this.listeners.get('update-available') ?? []) l({ version });
      return { updateInfo: { version } };
    }
    downloadUpdate = vi.fn(async () => {
      const name = this.files[0]!;
      const res = await fetch(`${this.feeds.at(-1)!.url}/${name}`);
      const path = joinPath(userData, name);
      writeFileSync(path, Buffer.from(await res.arrayBuffer()));
      return [path];
    });
    quitAndInstall = vi.fn();
  }
  const updater = new DebUpdater();
  fake.updater = updater as never;
  return { default: { autoUpdater: updater } };
});

beforeAll(async () => {
  svc = await startTestService();
  // The build ships the feed's root in its app folder.
  mkdirSync(join(appPath, 'assets'));
  copyFileSync(svc.info.updatesRoot, join(appPath, 'assets', 'update-root.json'));
  await publishUpdate(svc, {
    version: '0.2.0',
    fileName: 'capture-uploader_0.2.0_amd64.deb',
    content: randomBytes(50_000),
  });
  storeSeed.set('updates', { feedUrl: `${svc.info.updatesUrl}?token=feed-s3cret` });
});
afterAll(async () => {
  await quitShell();
  await svc.stop();
  rmSync(userData, { recursive: true, force: true });
  rmSync(appPath, { recursive: true, force: true });
});

describe('the shell’s updates', () => {
  it('checks the signed feed at start, hands electron-updater only the verified files, and says "update ready" in the tray, the about box and the report', async () => {
    await import('./main.js');
    rec.ready();
    await vi.waitFor(() => expect(fake.updater?.downloadUpdate).toHaveBeenCalledTimes(1), { timeout: 20_000 });
    const u = fake.updater!;
    // electron-updater reads the loopback feed, never the site's feed itself.
    expect(u.feeds.map((f) => new URL(f.url).hostname)).toEqual(['127.0.0.1']);
    expect(u.checks).toBe(1);
    // electron-updater neither downloads nor installs on its own: the shell decides when.
    expect(u).toMatchObject({ autoDownload: false, autoInstallOnAppQuit: false });
    await vi.waitFor(() =>
      expect(rec.state.tooltips.at(-1)).toMatch(
        /^Capture Uploader 0\.1\.0: .* · update ready: 0\.2\.0, installs when you quit$/,
      ),
    );
    const menu = rec.state.menus.at(-1)!;
    expect(menu.map((i) => i.label)).toContain('Version 0.1.0 · update ready: 0.2.0, installs when you quit');
    menu.find((i) => i.label === 'About Capture Uploader')!.click!();
    await vi.waitFor(() => expect(rec.state.messageBoxes).toHaveLength(1));
    expect(rec.state.messageBoxes[0]).toMatchObject({
      title: 'About Capture Uploader',
      message: 'Capture Uploader 0.1.0',
      detail: expect.stringMatching(
        /^Update ready: 0\.2\.0, installs when you quit, once uploads in progress have stopped\. Last checked .+\.$/,
      ),
    });
    // The support report says the same, with the last check's time.
    const out = join(userData, 'report.zip');
    rec.state.savePath = out;
    const help = rec.state.appMenu!.find((m) => m.role === 'help')!;
    help.submenu!.find((i) => i.label === 'Save a report for support…')!.click!();
    await vi.waitFor(() => expect(rec.state.notifications.map((n) => n.title)).toContain('Report saved'), {
      timeout: 20_000,
    });
    const entries = unzipSync(readFileSync(out));
    const versions = JSON.parse(strFromU8(entries['versions.json']!)) as Record<string, string>;
    expect(versions).toMatchObject({
      updates: 'Version 0.1.0 · update ready: 0.2.0, installs when you quit',
      updatesDetail: expect.stringMatching(
        /^Update ready: 0\.2\.0, installs when you quit, once uploads in progress have stopped\. Last checked .+\.$/,
      ),
      updatesCheckedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    // What the app read is in the support log; the feed's token is nowhere.
    const log = Object.entries(entries)
      .filter(([n]) => n.startsWith('logs/'))
      .map(([, d]) => strFromU8(d))
      .join('\n');
    expect(log).toMatch(/Updates: read metadata\/timestamp\.json from the feed \(\d+ bytes\)\./);
    expect(JSON.stringify([rec.state.tooltips, rec.state.menus, rec.state.messageBoxes, log, versions])).not.toMatch(
      /feed-s3cret/,
    );
  });

  it('installs only after quit’s drain let the app go: the service process has ended first', async () => {
    const service = rec.state.utility.at(-1)!.child;
    let serviceEndedAtInstall: boolean | undefined;
    fake.updater!.quitAndInstall.mockImplementation(() => {
      serviceEndedAtInstall = service.exitCode !== null || service.signalCode !== null;
    });
    let prevented = false;
    for (const l of rec.appEvents.get('before-quit')!) l({ preventDefault: () => (prevented = true) });
    // Quit waits for the service to stop its uploads; nothing is installed meanwhile.
    expect(prevented).toBe(true);
    expect(fake.updater!.quitAndInstall).not.toHaveBeenCalled();
    expect(rec.state.quits).toBe(0);
    await vi.waitFor(() => expect(fake.updater!.quitAndInstall).toHaveBeenCalledTimes(1), { timeout: 20_000 });
    expect(fake.updater!.quitAndInstall).toHaveBeenCalledWith(true, false);
    expect(serviceEndedAtInstall).toBe(true);
    await vi.waitFor(() => expect(rec.state.quits).toBe(1));
  });
});
