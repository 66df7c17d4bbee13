import { Database } from '../testing/queue-backdoors.js';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { LoginStartView, QueueView } from '../../shared/ipc.js';
import { ServiceHost } from '../service-host/host.js';
import { EXE, rec, storeSeed, appFrame, quitShell } from './electron-stand-in.js';

// A login start (docs/decisions/0018-login-start.md): the shell is started with `--hidden` against the
// recording Electron stand-in, over a queue an earlier run left with work. It must open no window,
// only the tray, and drain the queue all the same; the setting it applies (the XDG autostart file
// here, the login item on macOS and Windows) is read back from what it wrote and asked of Electron.
const userData = mkdtempSync(join(tmpdir(), 'shell-login-'));
const configHome = mkdtempSync(join(tmpdir(), 'shell-login-xdg-'));
const work = mkdtempSync(join(tmpdir(), 'shell-login-files-'));
const autostart = join(configHome, 'autostart', 'capture-uploader.desktop');
const realPlatform = process.platform;
const setPlatform = (p: string) => Object.defineProperty(process, 'platform', { value: p, configurable: true });

vi.mock('electron', async () => (await import('./electron-stand-in.js')).electronModule(userData));
vi.mock('electron-store', async () => (await import('./electron-stand-in.js')).electronStoreModule);

afterAll(async () => {
  setPlatform(realPlatform);
  vi.unstubAllEnvs();
  process.argv = process.argv.filter((a) => a !== '--hidden');
  await quitShell();
  for (const d of [userData, configHome, work]) rmSync(d, { recursive: true, force: true });
});

const invoke = async <T>(c: string, arg?: unknown): Promise<T> => {
  const answer = (await rec.handlers.get(c)!(appFrame(), arg)) as { ok: boolean; value: T; error?: string };
  if (!answer.ok) throw new Error(answer.error);
  return answer.value;
};

/**
 * The earlier run: the local service chosen and two recordings queued behind a hold of
 * `holdMs` (no byte leaves before this run ends). Its settings file is what the shell's
 * electron-store starts with.
 */
async function earlierRun(holdMs: number): Promise<string[]> {
  const store = new Map<string, unknown>();
  const host = new ServiceHost({
    dataDir: userData,
    store: {
      get: (k) => store.get(k),
      set: (k, v) => (v === undefined ? store.delete(k) : store.set(k, v)),
      snapshot: () => Object.fromEntries(store),
    },
    // The stand-in's safeStorage scheme, so the shell reads what this run sealed.
    secrets: {
      available: () => true,
      encrypt: (s) => Buffer.from(`enc:${s}`).toString('base64'),
      decrypt: (b) => Buffer.from(b, 'base64').toString().slice(4),
    },
    emit: () => {},
    pickFiles: async () => [],
    localService: 'find',
  });
  await host.start();
  const call = async <T>(c: Parameters<ServiceHost['call']>[0], args?: unknown): Promise<T> => {
    const a = await host.call(c, args);
    if (!a.ok) throw new Error(a.error);
    return a.value as T;
  };
  const { structures } = await call<{ structures: { id: string }[] }>('capture:settings.useLocalService');
  await call('capture:queue.pauseUntil', { until: new Date(Date.now() + holdMs).toISOString() });
  const paths = ['first.mp4', 'second.mp4'].map((name) => join(work, name));
  for (const p of paths) writeFileSync(p, randomBytes(3 * 1024 * 1024));
  await call(
    'capture:captures.register',
    paths.map((p) => ({
      paths: [p],
      structure: structures[0]!.id,
      type: 'interior',
      capturedAt: '2026-11-22T08:00:00Z',
    })),
  );
  await host.close();
  for (const [k, v] of store) storeSeed.set(k, v);
  return paths;
}

describe('a login start of the Electron shell', () => {
  it('opens no window, only the tray; starts at login while the queue holds work, and drains it', async () => {
    const paths = await earlierRun(25_000);
    // What the earlier run left: neither file sent.
    const db = new Database(join(userData, 'queue', 'queue.db'), { readonly: true });
    expect(
      (db.prepare(`SELECT state FROM files ORDER BY id`).all() as { state: string }[]).map((r) => r.state),
    ).not.toContain('completed');
    db.close();

    setPlatform('linux');
    vi.stubEnv('XDG_CONFIG_HOME', configHome);
    process.argv.push('--hidden');
    await import('./main.js');
    rec.ready();
    // The tray and the service, and no window.
    await vi.waitFor(() => expect(rec.state.utility).toHaveLength(1), { timeout: 20_000 });
    await vi.waitFor(() => expect(rec.state.tooltips.length).toBeGreaterThanOrEqual(1));
    expect(rec.windows).toHaveLength(0);

    // The default while the queue holds unfinished work: the XDG autostart file, running the app with --hidden.
    await vi.waitFor(() => expect(existsSync(autostart)).toBe(true), { timeout: 10_000 });
    expect((await invoke<QueueView>('capture:queue.list')).files.map((f) => f.state)).not.toContain('completed');
    expect(readFileSync(autostart, 'utf8').split('\n')).toEqual(
      expect.arrayContaining([
        '[Desktop Entry]',
        'Type=Application',
        'Name=Capture Uploader',
        `Exec="${EXE}" --hidden`,
      ]),
    );
    expect(await invoke<LoginStartView>('capture:loginStart.get')).toEqual({
      enabled: true,
      choice: null,
      unfinishedWork: true,
      supported: true,
      error: null,
    });
    // No login item on Linux.
    expect(rec.state.loginItems).toEqual([]);

    // The hold ends and the queue drains without a window.
    await vi.waitFor(
      async () => {
        const q = await invoke<QueueView>('capture:queue.list');
        expect(q.files.map((f) => [f.path, f.state])).toEqual(paths.map((p) => [p, 'completed']));
      },
      { timeout: 60_000, interval: 250 },
    );
    expect(rec.state.tooltips.some((t) => /Uploading: \d+% · \d of 2 files/.test(t))).toBe(true);
    expect(rec.windows).toHaveLength(0);
    // Nothing left to do: the default no longer starts the app at login.
    await vi.waitFor(() => expect(existsSync(autostart)).toBe(false), { timeout: 10_000 });
    expect(await invoke<LoginStartView>('capture:loginStart.get')).toEqual({
      enabled: false,
      choice: null,
      unfinishedWork: false,
      supported: true,
      error: null,
    });
  }, 120_000);

  it('a person’s choice is kept apart from the default: on writes the file with an empty queue, off removes it', async () => {
    expect(await invoke<LoginStartView>('capture:loginStart.set', { enabled: true })).toMatchObject({
      enabled: true,
      choice: true,
      unfinishedWork: false,
    });
    expect(readFileSync(autostart, 'utf8')).toContain(`Exec="${EXE}" --hidden`);
    expect(await invoke<LoginStartView>('capture:loginStart.set', { enabled: false })).toMatchObject({
      enabled: false,
      choice: false,
    });
    expect(existsSync(autostart)).toBe(false);
    expect(await invoke<LoginStartView>('capture:loginStart.set', { enabled: null })).toMatchObject({
      enabled: false,
      choice: null,
    });
    await expect(invoke('capture:loginStart.set', { enabled: 'yes' })).rejects.toThrow(
      /Invalid request capture:loginStart.set/,
    );
  });

  it('on macOS asks Electron for a hidden login item, on Windows for one started with --hidden', async () => {
    try {
      setPlatform('darwin');
      await invoke('capture:loginStart.set', { enabled: true });
      expect(rec.state.loginItems.at(-1)).toEqual({ openAtLogin: true, openAsHidden: true });
      await invoke('capture:loginStart.set', { enabled: false });
      expect(rec.state.loginItems.at(-1)).toEqual({ openAtLogin: false, openAsHidden: true });
      setPlatform('win32');
      await invoke('capture:loginStart.set', { enabled: true });
      expect(rec.state.loginItems.at(-1)).toEqual({ openAtLogin: true, args: ['--hidden'] });
      await invoke('capture:loginStart.set', { enabled: false });
      expect(rec.state.loginItems.at(-1)).toEqual({ openAtLogin: false, args: ['--hidden'] });
      expect(rec.state.loginItems).toHaveLength(4);
    } finally {
      setPlatform('linux');
    }
  });

  it('opening the app again shows its window', () => {
    for (const l of rec.appEvents.get('second-instance') ?? []) l();
    expect(rec.windows).toHaveLength(1);
    expect(rec.windows[0]!.hidden).toBe(false);
  });
});
