import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { rec, storeSeed, quitShell } from './electron-stand-in.js';

// The shell with an update feed in its settings, under the Electron stand-in: electron-updater's
// autoUpdater is replaced by a fake that finds and downloads 0.2.0 (updates.test.ts runs the real
// one against a feed). What is checked is the shell's part: the version and "update ready" in the
// tray and the about box, and the install handed over only after quit's drain let the app go.
const userData = mkdtempSync(join(tmpdir(), 'shell-updates-'));
storeSeed.set('updates', { feedUrl: 'https://updates.example.com/capture-uploader?token=feed-s3cret' });

const updater = vi.hoisted(() => {
  const listeners = new Map<string, ((x: unknown) => void)[]>();
  return {
    autoDownload: true,
    autoInstallOnAppQuit: true,
    logger: null as unknown,
    feeds: [] as unknown[],
    checks: 0,
    setFeedURL(o: unknown) {
      this.feeds.push(o);
    },
    on(e: string, l: (x: unknown) => void) {
      listeners.set(e, [...(listeners.get(e) ?? []), l]);
      return this;
    },
    checkForUpdates() {
      this.checks++;
      for (const l of listeners.get('update-available') ?? []) l({ version: '0.2.0' });
      return Promise.resolve({ updateInfo: { version: '0.2.0' } });
    },
    downloadUpdate: vi.fn(() => Promise.resolve(['capture-uploader_0.2.0_amd64.deb'])),
    quitAndInstall: vi.fn(),
  };
});

vi.mock('electron', async () => (await import('./electron-stand-in.js')).electronModule(userData));
vi.mock('electron-store', async () => (await import('./electron-stand-in.js')).electronStoreModule);
vi.mock('electron-updater', () => ({ default: { autoUpdater: updater } }));

afterAll(async () => {
  await quitShell();
  rmSync(userData, { recursive: true, force: true });
});

describe('the shell’s updates', () => {
  it('checks the settings’ feed at start, downloads in the background, and says "update ready" in the tray and the about box', async () => {
    await import('./main.js');
    rec.ready();
    await vi.waitFor(() => expect(updater.downloadUpdate).toHaveBeenCalledTimes(1), { timeout: 20_000 });
    expect(updater.feeds).toEqual([
      { provider: 'generic', url: 'https://updates.example.com/capture-uploader?token=feed-s3cret' },
    ]);
    expect(updater.checks).toBe(1);
    // electron-updater neither downloads nor installs on its own: the shell decides when.
    expect(updater).toMatchObject({ autoDownload: false, autoInstallOnAppQuit: false });
    await vi.waitFor(() =>
      expect(rec.state.tooltips.at(-1)).toMatch(
        /^Capture Uploader 0\.1\.0: .* · update 0\.2\.0 ready: installs when you quit$/,
      ),
    );
    const menu = rec.state.menus.at(-1)!;
    expect(menu.map((i) => i.label)).toContain('Version 0.1.0 · update 0.2.0 ready: installs when you quit');
    menu.find((i) => i.label === 'About Capture Uploader')!.click!();
    await vi.waitFor(() => expect(rec.state.messageBoxes).toHaveLength(1));
    expect(rec.state.messageBoxes[0]).toMatchObject({
      title: 'About Capture Uploader',
      message: 'Capture Uploader 0.1.0',
      detail: 'Version 0.2.0 is downloaded and installs when you quit, once uploads in progress have stopped.',
    });
    expect(JSON.stringify([rec.state.tooltips, rec.state.menus, rec.state.messageBoxes])).not.toMatch(/feed-s3cret/);
  });

  it('installs only after quit’s drain let the app go: the service process has ended first', async () => {
    const service = rec.state.utility.at(-1)!.child;
    let serviceEndedAtInstall: boolean | undefined;
    updater.quitAndInstall.mockImplementation(() => {
      serviceEndedAtInstall = service.exitCode !== null || service.signalCode !== null;
    });
    let prevented = false;
    for (const l of rec.appEvents.get('before-quit')!) l({ preventDefault: () => (prevented = true) });
    // Quit waits for the service to stop its uploads; nothing is installed meanwhile.
    expect(prevented).toBe(true);
    expect(updater.quitAndInstall).not.toHaveBeenCalled();
    expect(rec.state.quits).toBe(0);
    await vi.waitFor(() => expect(updater.quitAndInstall).toHaveBeenCalledTimes(1), { timeout: 20_000 });
    expect(updater.quitAndInstall).toHaveBeenCalledWith(true, false);
    expect(serviceEndedAtInstall).toBe(true);
    expect(rec.state.quits).toBe(1);
  });
});
