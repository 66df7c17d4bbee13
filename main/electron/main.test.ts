import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { rec, appFrame, quitShell } from './electron-stand-in.js';
import { useShellFolders } from '../testing/shell-folders.js';

// The Electron binary cannot run on this machine, so the shell is run against a recording stand-in
// for the `electron` module: what the shell asks of Electron (window options, handlers, blockers,
// notifications) is what these tests check. The app core behind it is the real one.
// Start at login writes an XDG autostart file while the queue has work: here, never in the home of whoever runs the tests.
const { userData, work } = useShellFolders('shell-test', quitShell, { isolateLogin: true });

vi.mock('electron', async () => (await import('./electron-stand-in.js')).electronModule(userData));
vi.mock('electron-store', async () => (await import('./electron-stand-in.js')).electronStoreModule);

// The source layout: main/electron/main.ts loads ../../renderer (the bundle: dist/main/electron → dist/renderer).
/** Every event the window got: relayed by the main process, or on its port straight from the service. */
const seen = () => [...rec.windows[0]!.sent, ...rec.windows[0]!.viaPort];

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
    const contents = {
      on: (e: string, l: (e: { preventDefault(): void }) => void) => (hooks[e] = l),
      setWindowOpenHandler: (h: () => { action: string }) => (openHandler = h),
    };
    for (const l of rec.appEvents.get('web-contents-created')!) l({}, contents);
    for (const e of ['will-navigate', 'will-attach-webview']) {
      let prevented = false;
      hooks[e]!({ preventDefault: () => (prevented = true) });
      expect(prevented).toBe(true);
    }
    expect(openHandler!()).toEqual({ action: 'deny' });
  });

  it('registers every channel of the contract, answering only the app’s own top frame', async () => {
    const { CANCEL_CHANNEL, channels } = await import('../../shared/ipc.js');
    // The contract's channels and the window's cancel of a call by its id (main/ipc/dispatch.ts).
    expect([...rec.handlers.keys()].sort()).toEqual([...Object.keys(channels), CANCEL_CHANNEL].sort());
    const get = rec.handlers.get('capture:settings.get')!;
    const ours = await get(appFrame(), undefined);
    expect(ours).toMatchObject({
      ok: true,
      value: { configured: false, encryptionAvailable: true, localServiceAvailable: true },
    });
    expect(await get({ senderFrame: { url: 'https://evil.example/', parent: null } }, undefined)).toEqual({
      ok: false,
      error: 'Refused: the request did not come from the app’s own window',
    });
    expect(await get({ senderFrame: { ...appFrame().senderFrame, parent: {} } }, undefined)).toMatchObject({
      ok: false,
    });
    expect(await rec.handlers.get('capture:queue.pause')!(appFrame(), { fileId: -1 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Invalid request capture:queue.pause/),
    });
  });

  it('holds a power-save blocker while the queue drains, notifies on completion, and keeps uploading when the window closes', async () => {
    const invoke = (c: string, arg?: unknown) =>
      rec.handlers.get(c)!(appFrame(), arg) as Promise<{ ok: boolean; value?: unknown; error?: string }>;
    const local = await invoke('capture:settings.useLocalService');
    expect(local.ok).toBe(true);
    const file = join(work, 'walk.mp4');
    writeFileSync(file, randomBytes(3 * 1024 * 1024));
    const structures = (local.value as { structures: { id: string }[] }).structures;
    const reg = await invoke('capture:captures.register', [
      { paths: [file], structure: structures[0]!.id, type: 'interior', capturedAt: '2026-11-22T08:00:00Z' },
    ]);
    expect(reg).toMatchObject({ ok: true, value: { queued: [1] } });

    // Closing the window while uploads run hides it instead of quitting.
    let prevented = false;
    for (const l of rec.windows[0]!.events.get('close') ?? []) l({ preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    expect(rec.windows[0]!.hidden).toBe(true);

    await vi.waitFor(() => expect(rec.state.notifications.map((n) => n.title)).toContain('Queue finished'), {
      timeout: 20_000,
    });
    await vi.waitFor(() => expect(rec.state.stopped).toEqual(rec.state.blockers), { timeout: 20_000 });
    expect(rec.state.blockers.length).toBeGreaterThanOrEqual(1);
    expect(seen().some(([c]) => c === 'capture:event.queue')).toBe(true);
    // The screen was told the computer was kept awake while the blocker was held, and then not.
    // The service learns the blocker's release in an answer of its own (a message, not a wait), so
    // the last word reaches the window after the blocker is stopped: waited for, not assumed.
    const powerSent = () =>
      seen()
        .filter(([c]) => c === 'capture:event.power')
        .map(([, p]) => p);
    await vi.waitFor(() => expect(powerSent().at(-1)).toEqual({ keptAwake: false }), { timeout: 20_000 });
    const power = powerSent();
    expect(power.length).toBeGreaterThanOrEqual(2);
    expect(power.map((p, i) => (p as { keptAwake: boolean }).keptAwake === (i % 2 === 0))).not.toContain(false);
    expect(power.at(-1)).toEqual({ keptAwake: false });
    // The taskbar showed the queue's progress while it uploaded, and cleared it when done.
    expect(rec.state.progressBar.some((p) => p >= 0 && p <= 1)).toBe(true);
    expect(rec.state.progressBar.at(-1)).toBe(-1);
    // The tray said it in words and offered pause all / resume all / open.
    expect(rec.state.tooltips.some((t) => /Uploading: \d+% · 0 of 1 files/.test(t))).toBe(true);
    expect(rec.state.menus.at(-1)!.map((i) => i.label)).toEqual(
      expect.arrayContaining(['Pause all', 'Resume all', 'Open Capture Uploader', 'Quit']),
    );
  });

  it('relays: the renderer’s calls reach the service process and its events reach the window', async () => {
    // The service is a utility process of its own, started from the service's module.
    expect(rec.state.utility).toHaveLength(1);
    expect(rec.state.utility[0]!.modulePath).toMatch(/service[\\/]worker\.ts$/);
    expect(rec.state.utility[0]!.child.pid).not.toBe(process.pid);
    const { sent, viaPort, ports } = rec.windows[0]!;
    // The service said it started with its queue, and the window was told (by the host, which keeps the status).
    expect(sent).toContainEqual(['capture:event.service', { queueError: null }]);
    // The window was handed a port of its own, and the service the other end of it.
    const { WINDOW_PORT } = await import('../../shared/ipc.js');
    expect(ports.map((p) => p.channel)).toContain(WINDOW_PORT);
    expect(rec.state.portsToService.length).toBeGreaterThanOrEqual(1);
    // The service's queue events came on that port, straight from its process: none through the relay.
    expect(sent.filter(([c]) => c === 'capture:event.rows')).toEqual([]);
    // The rows the service committed reached the window as deltas: the file of the test above, completed.
    const rows = viaPort
      .filter(([c]) => c === 'capture:event.rows')
      .map(([, p]) => p as { files: { id: number; state: string }[] });
    expect(rows.some((r) => r.files.some((f) => f.id === 1 && f.state === 'completed'))).toBe(true);
    // A call answered by the service, through the IPC dispatch.
    const list = (await rec.handlers.get('capture:queue.list')!(appFrame(), undefined)) as {
      ok: boolean;
      value: { files: { state: string }[] };
    };
    expect(list).toMatchObject({ ok: true });
    expect(list.value.files.map((f) => f.state)).toEqual(['completed']);
    expect(await rec.handlers.get('capture:service.status')!(appFrame(), undefined)).toEqual({
      ok: true,
      value: { queueError: null },
    });
  });

  it('a service process that crashes is started again: the window and tray stay, and the window is told once', async () => {
    const { RESTARTED } = await import('../service-host/host.js');
    const first = rec.state.utility[0]!.child;
    const tooltips = rec.state.tooltips.length;
    // As a native crash would end it.
    first.kill('SIGKILL');
    await vi.waitFor(() => expect(rec.state.utility).toHaveLength(2), { timeout: 20_000 });
    await vi.waitFor(
      () =>
        expect(rec.windows[0]!.sent.filter(([c]) => c === 'capture:event.service').length).toBeGreaterThanOrEqual(2),
      { timeout: 20_000 },
    );
    const notices = rec.windows[0]!.sent.filter(
      ([c, p]) => c === 'capture:event.notice' && (p as { message: string }).message === RESTARTED,
    );
    expect(notices).toHaveLength(1);
    // The same window, the tray still answering, and the new service answers through the IPC dispatch.
    expect(rec.windows).toHaveLength(1);
    expect(rec.state.tooltips.length).toBeGreaterThanOrEqual(tooltips);
    const list = (await rec.handlers.get('capture:queue.list')!(appFrame(), undefined)) as {
      ok: boolean;
      value: { files: { state: string }[] };
    };
    expect(list).toMatchObject({ ok: true, value: { files: [{ state: 'completed' }] } });
  });
});
