import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';

// The Electron binary cannot run on this machine, so the shell is run against a recording stand-in
// for the `electron` module: what the shell asks of Electron (window options, handlers, blockers,
// notifications) is what these tests check. The app core behind it is the real one.
const userData = mkdtempSync(join(tmpdir(), 'shell-test-'));
const work = mkdtempSync(join(tmpdir(), 'shell-files-'));

const rec = vi.hoisted(() => {
  type Listener = (...args: unknown[]) => unknown;
  const handlers = new Map<string, Listener>();
  const appEvents = new Map<string, Listener[]>();
  const windows: { options: Record<string, unknown>; events: Map<string, Listener[]>; hidden: boolean; loaded?: string; sent: [string, unknown][] }[] = [];
  const contentsHooks = { navigate: [] as Listener[], webview: [] as Listener[], windowOpen: [] as Listener[] };
  const state = { permission: undefined as undefined | Listener, permissionCheck: undefined as undefined | Listener, blockers: [] as number[], stopped: [] as number[], notifications: [] as { title: string; body: string }[], singleInstance: 0, progressBar: [] as number[], tooltips: [] as string[], menus: [] as { label?: string }[][] };
  let ready!: () => void;
  const whenReadyPromise = new Promise<void>((r) => (ready = r));
  return { handlers, appEvents, windows, contentsHooks, state, whenReadyPromise, ready: () => ready() };
});

vi.mock('electron', () => {
  const on = (map: Map<string, ((...a: unknown[]) => unknown)[]>, e: string, l: (...a: unknown[]) => unknown) => map.set(e, [...(map.get(e) ?? []), l]);
  class BrowserWindow {
    private w: (typeof rec.windows)[number];
    webContents: { send: (c: string, p: unknown) => void };
    constructor(options: Record<string, unknown>) {
      this.w = { options, events: new Map(), hidden: true, sent: [] };
      rec.windows.push(this.w);
      this.webContents = { send: (c, p) => this.w.sent.push([c, p]) };
    }
    once(e: string, l: () => void) {
      on(this.w.events, e, l);
    }
    on(e: string, l: () => void) {
      on(this.w.events, e, l);
    }
    loadFile(f: string) {
      this.w.loaded = f;
      return Promise.resolve();
    }
    show() {
      this.w.hidden = false;
    }
    hide() {
      this.w.hidden = true;
    }
    focus() {}
    isDestroyed() {
      return false;
    }
    setProgressBar(p: number) {
      rec.state.progressBar.push(p);
    }
  }
  class Notification {
    constructor(private o: { title: string; body: string }) {}
    static isSupported() {
      return true;
    }
    show() {
      rec.state.notifications.push(this.o);
    }
  }
  class Tray {
    on() {}
    setToolTip(t: string) {
      rec.state.tooltips.push(t);
    }
    setContextMenu(m: { label?: string }[]) {
      rec.state.menus.push(m);
    }
  }
  const app = {
    getPath: () => userData,
    getAppPath: () => process.cwd(),
    getVersion: () => '0.1.0',
    requestSingleInstanceLock: () => {
      rec.state.singleInstance++;
      return true;
    },
    setAppUserModelId: () => {},
    on: (e: string, l: (...a: unknown[]) => unknown) => on(rec.appEvents, e, l),
    whenReady: () => rec.whenReadyPromise,
    quit: () => {},
  };
  const electron = {
    app,
    BrowserWindow,
    Notification,
    Tray,
    Menu: { buildFromTemplate: (t: unknown) => t },
    nativeImage: { createFromPath: () => ({ resize: () => ({}) }) },
    ipcMain: { handle: (c: string, l: (...a: unknown[]) => unknown) => rec.handlers.set(c, l), on: () => {} },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (l: (...a: unknown[]) => unknown) => (rec.state.permission = l),
        setPermissionCheckHandler: (l: (...a: unknown[]) => unknown) => (rec.state.permissionCheck = l),
      },
    },
    powerSaveBlocker: {
      start: () => {
        const id = rec.state.blockers.length + 1;
        rec.state.blockers.push(id);
        return id;
      },
      stop: (id: number) => rec.state.stopped.push(id),
      isStarted: (id: number) => rec.state.blockers.includes(id) && !rec.state.stopped.includes(id),
    },
    safeStorage: {
      isEncryptionAvailable: () => true,
      getSelectedStorageBackend: () => 'gnome_libsecret',
      encryptString: (s: string) => Buffer.from(`enc:${s}`),
      decryptString: (b: Buffer) => b.toString().slice(4),
    },
    dialog: { showOpenDialog: async () => ({ canceled: true, filePaths: [] }) },
  };
  return { ...electron, default: electron };
});

vi.mock('electron-store', () => ({
  default: class {
    private m = new Map<string, unknown>();
    get(k: string) {
      return this.m.get(k);
    }
    set(k: string, v: unknown) {
      this.m.set(k, v);
    }
  },
}));

afterAll(async () => {
  for (const l of rec.appEvents.get('before-quit') ?? []) l({ preventDefault: () => {} });
  await new Promise((r) => setTimeout(r, 500));
  rmSync(userData, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

// The source layout: main/electron/main.ts loads ../../renderer (the bundle: dist/main/electron → dist/renderer).
const appFrame = () => ({ senderFrame: { url: pathToFileURL(join(process.cwd(), 'renderer/index.html')).href, parent: null } });

describe('the Electron shell', () => {
  it('starts with a single-instance lock and one locked-down window', async () => {
    await import('./main.js');
    rec.ready();
    await vi.waitFor(() => expect(rec.windows).toHaveLength(1));
    expect(rec.state.singleInstance).toBe(1);
    const prefs = rec.windows[0]!.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(String(prefs.preload)).toMatch(/preload[\\/]index\.cjs$/);
    expect(rec.windows[0]!.loaded).toMatch(/renderer[\\/]index\.html$/);
  });

  it('denies every permission, navigation, new window and webview', () => {
    let granted: boolean | undefined;
    rec.state.permission!({}, 'media', (g: boolean) => (granted = g));
    expect(granted).toBe(false);
    expect(rec.state.permissionCheck!()).toBe(false);
    const hooks: Record<string, (e: { preventDefault(): void }) => void> = {};
    let openHandler: (() => { action: string }) | undefined;
    const contents = { on: (e: string, l: (e: { preventDefault(): void }) => void) => (hooks[e] = l), setWindowOpenHandler: (h: () => { action: string }) => (openHandler = h) };
    for (const l of rec.appEvents.get('web-contents-created')!) l({}, contents);
    for (const e of ['will-navigate', 'will-attach-webview']) {
      let prevented = false;
      hooks[e]!({ preventDefault: () => (prevented = true) });
      expect(prevented).toBe(true);
    }
    expect(openHandler!()).toEqual({ action: 'deny' });
  });

  it('registers every channel of the contract, answering only the app’s own top frame', async () => {
    const { channels } = await import('../../shared/ipc.js');
    expect([...rec.handlers.keys()].sort()).toEqual(Object.keys(channels).sort());
    const get = rec.handlers.get('capture:settings.get')!;
    const ours = await get(appFrame(), undefined);
    expect(ours).toMatchObject({ ok: true, value: { configured: false, encryptionAvailable: true, localServiceAvailable: true } });
    expect(await get({ senderFrame: { url: 'https://evil.example/', parent: null } }, undefined)).toEqual({ ok: false, error: 'Refused: the request did not come from the app’s own window' });
    expect(await get({ senderFrame: { ...appFrame().senderFrame, parent: {} } }, undefined)).toMatchObject({ ok: false });
    expect(await rec.handlers.get('capture:queue.pause')!(appFrame(), { fileId: -1 })).toMatchObject({ ok: false, error: expect.stringMatching(/^Invalid request capture:queue.pause/) });
  });

  it('holds a power-save blocker while the queue drains, notifies on completion, and keeps uploading when the window closes', async () => {
    const invoke = (c: string, arg?: unknown) => rec.handlers.get(c)!(appFrame(), arg) as Promise<{ ok: boolean; value?: unknown; error?: string }>;
    const local = await invoke('capture:settings.useLocalService');
    expect(local.ok).toBe(true);
    const file = join(work, 'walk.mp4');
    writeFileSync(file, randomBytes(3 * 1024 * 1024));
    const structures = (local.value as { structures: { id: string }[] }).structures;
    const reg = await invoke('capture:captures.register', [{ paths: [file], structure: structures[0]!.id, type: 'interior', capturedAt: '2026-11-22T08:00:00Z' }]);
    expect(reg).toMatchObject({ ok: true, value: { queued: [1] } });

    // Closing the window while uploads run hides it instead of quitting.
    let prevented = false;
    for (const l of rec.windows[0]!.events.get('close') ?? []) l({ preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    expect(rec.windows[0]!.hidden).toBe(true);

    await vi.waitFor(() => expect(rec.state.notifications.map((n) => n.title)).toContain('Queue finished'), { timeout: 20_000 });
    await vi.waitFor(() => expect(rec.state.stopped).toEqual(rec.state.blockers));
    expect(rec.state.blockers.length).toBeGreaterThanOrEqual(1);
    expect(rec.windows[0]!.sent.some(([c]) => c === 'capture:event.queue')).toBe(true);
    // The screen was told the computer was kept awake while the blocker was held, and then not.
    const power = rec.windows[0]!.sent.filter(([c]) => c === 'capture:event.power').map(([, p]) => p);
    expect(power.length).toBeGreaterThanOrEqual(2);
    expect(power.map((p, i) => (p as { keptAwake: boolean }).keptAwake === (i % 2 === 0))).not.toContain(false);
    expect(power.at(-1)).toEqual({ keptAwake: false });
    // The taskbar showed the queue's progress while it uploaded, and cleared it when done.
    expect(rec.state.progressBar.some((p) => p >= 0 && p <= 1)).toBe(true);
    expect(rec.state.progressBar.at(-1)).toBe(-1);
    // The tray said it in words and offered pause all / resume all / open.
    expect(rec.state.tooltips.some((t) => /Uploading: \d+% · 0 of 1 files/.test(t))).toBe(true);
    expect(rec.state.menus.at(-1)!.map((i) => i.label)).toEqual(expect.arrayContaining(['Pause all', 'Resume all', 'Open Capture Uploader', 'Quit']));
  });
});
