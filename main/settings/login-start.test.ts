import { describe, expect, it } from 'vitest';
import { HIDDEN_ARG, desktopEntry, loginStartPlan, startedHidden } from './login-start-plan.js';
import { LOGIN_START_KEY, LoginStart, hasUnfinishedWork } from './login-start.js';

const EXE = '/opt/Capture Uploader/capture-uploader';

describe('loginStartPlan', () => {
  it('macOS: a hidden login item, on and off', () => {
    expect(
      loginStartPlan('darwin', '/Applications/Capture Uploader.app/Contents/MacOS/Capture Uploader', true, {}),
    ).toEqual({ kind: 'login-item', settings: { openAtLogin: true, openAsHidden: true } });
    expect(loginStartPlan('darwin', EXE, false, {})).toEqual({
      kind: 'login-item',
      settings: { openAtLogin: false, openAsHidden: true },
    });
  });

  it('Windows: a login item started with --hidden, the same arguments when it is removed', () => {
    expect(loginStartPlan('win32', 'C:\\Program Files\\Capture Uploader\\Capture Uploader.exe', true, {})).toEqual({
      kind: 'login-item',
      settings: { openAtLogin: true, args: ['--hidden'] },
    });
    expect(loginStartPlan('win32', EXE, false, {})).toEqual({
      kind: 'login-item',
      settings: { openAtLogin: false, args: ['--hidden'] },
    });
    // A development run (electron <folder>): the folder before --hidden.
    expect(loginStartPlan('win32', 'C:\\e\\electron.exe', true, {}, ['C:\\src\\app'])).toEqual({
      kind: 'login-item',
      settings: { openAtLogin: true, args: ['C:\\src\\app', '--hidden'] },
    });
  });

  it('Linux: the autostart file in XDG_CONFIG_HOME, else ~/.config; removed when off', () => {
    expect(
      loginStartPlan('linux', '/usr/bin/capture-uploader', true, { XDG_CONFIG_HOME: '/x/cfg', HOME: '/home/op' }),
    ).toEqual({
      kind: 'autostart-file',
      path: '/x/cfg/autostart/capture-uploader.desktop',
      contents: desktopEntry('/usr/bin/capture-uploader'),
    });
    expect(loginStartPlan('linux', '/usr/bin/capture-uploader', true, { HOME: '/home/op' })).toMatchObject({
      path: '/home/op/.config/autostart/capture-uploader.desktop',
    });
    // A relative XDG_CONFIG_HOME is invalid (XDG Base Directory Specification) and ignored.
    expect(
      loginStartPlan('linux', '/usr/bin/capture-uploader', true, { XDG_CONFIG_HOME: 'cfg', HOME: '/home/op' }),
    ).toMatchObject({ path: '/home/op/.config/autostart/capture-uploader.desktop' });
    expect(loginStartPlan('linux', '/usr/bin/capture-uploader', false, { HOME: '/home/op' })).toEqual({
      kind: 'autostart-file',
      path: '/home/op/.config/autostart/capture-uploader.desktop',
      contents: null,
    });
    expect(loginStartPlan('linux', '/usr/bin/capture-uploader', true, {})).toMatchObject({ kind: 'unsupported' });
  });

  it('Linux: an AppImage starts from its own file, not from the mount the running copy sits in', () => {
    const plan = loginStartPlan('linux', '/tmp/.mount_CaptuXyZ/capture-uploader', true, {
      HOME: '/home/op',
      APPIMAGE: '/home/op/Apps/Capture-Uploader.AppImage',
    });
    expect(plan).toMatchObject({ kind: 'autostart-file' });
    expect((plan as { contents: string }).contents).toContain(
      '\nExec=/home/op/Apps/Capture-Uploader.AppImage --hidden\n',
    );
  });

  it('says which systems it cannot serve', () => {
    expect(loginStartPlan('aix', EXE, true, { HOME: '/h' })).toEqual({
      kind: 'unsupported',
      reason: 'Starting at login is not offered on aix.',
    });
    expect(loginStartPlan('darwin', '/e/Electron', true, {}, ['/src/app'])).toMatchObject({ kind: 'unsupported' });
  });
});

describe('desktopEntry', () => {
  const exec = (exe: string) =>
    desktopEntry(exe)
      .split('\n')
      .find((l) => l.startsWith('Exec='));

  it('is a Desktop Entry running the app with --hidden', () => {
    expect(desktopEntry('/usr/bin/capture-uploader')).toBe(
      [
        '[Desktop Entry]',
        'Type=Application',
        'Version=1.5',
        'Name=Capture Uploader',
        'Comment=Resumes the upload queue at login, minimized to the tray',
        'Exec=/usr/bin/capture-uploader --hidden',
        'Terminal=false',
        'X-GNOME-Autostart-enabled=true',
        '',
      ].join('\n'),
    );
  });

  // Desktop Entry Specification, "The Exec key": quoting, escapes inside quotes, string escapes, field codes.
  it.each([
    ['/opt/Capture Uploader/capture-uploader', 'Exec="/opt/Capture Uploader/capture-uploader" --hidden'],
    ['/opt/a$b/app', 'Exec="/opt/a\\\\$b/app" --hidden'],
    ['/opt/say "hi"/app', 'Exec="/opt/say \\\\"hi\\\\"/app" --hidden'],
    ['/opt/back\\slash/app', 'Exec="/opt/back\\\\\\\\slash/app" --hidden'],
    ['/opt/100%/app', 'Exec=/opt/100%%/app --hidden'],
  ])('quotes %s', (exe, line) => {
    expect(exec(exe)).toBe(line);
  });
});

describe('startedHidden', () => {
  it('is a login start with --hidden, or on macOS when the login item opened it', () => {
    expect(startedHidden(['/usr/bin/capture-uploader', HIDDEN_ARG], 'linux')).toBe(true);
    expect(startedHidden(['C:\\app.exe', '--hidden'], 'win32')).toBe(true);
    expect(startedHidden(['/usr/bin/capture-uploader'], 'linux')).toBe(false);
    expect(startedHidden(['/A'], 'darwin', { wasOpenedAsHidden: true, wasOpenedAtLogin: false })).toBe(true);
    expect(startedHidden(['/A'], 'darwin', { wasOpenedAsHidden: false, wasOpenedAtLogin: true })).toBe(true);
    expect(startedHidden(['/A'], 'darwin', { wasOpenedAsHidden: false, wasOpenedAtLogin: false })).toBe(false);
    // Only macOS has the login item's word; elsewhere it is the argument.
    expect(startedHidden(['/A'], 'linux', { wasOpenedAtLogin: true })).toBe(false);
  });
});

describe('LoginStart', () => {
  const totals = (files: number, completed: number, cancelled = 0) => ({ files, completed, cancelled });
  const make = (seed?: boolean | null, supported = true) => {
    const store = new Map<string, unknown>(seed === undefined ? [] : [[LOGIN_START_KEY, seed]]);
    const applied: boolean[] = [];
    const login = new LoginStart({
      store: { get: (k) => store.get(k), set: (k, v) => store.set(k, v) },
      supported,
      apply: (e) => void applied.push(e),
    });
    return { store, applied, login };
  };

  it('counts waiting, paused and failed files as unfinished, completed and cancelled ones not', () => {
    expect(hasUnfinishedWork(totals(3, 2, 1))).toBe(false);
    expect(hasUnfinishedWork(totals(3, 1, 1))).toBe(true);
    expect(hasUnfinishedWork(totals(0, 0))).toBe(false);
  });

  it('by default follows the queue: nothing until its first totals, on with unfinished work, off when done, once per change', () => {
    const { applied, login } = make();
    login.start();
    expect(applied).toEqual([]);
    login.onTotals(totals(2, 0));
    login.onTotals(totals(2, 1));
    expect(applied).toEqual([true]);
    login.onTotals(totals(2, 2));
    expect(applied).toEqual([true, false]);
    expect(login.view()).toEqual({ enabled: false, choice: null, unfinishedWork: false, supported: true, error: null });
  });

  it('keeps the person’s choice apart from the default and applies it at start, whatever the queue holds', () => {
    const { store, applied, login } = make(false);
    login.start();
    expect(applied).toEqual([false]);
    login.onTotals(totals(5, 0));
    expect(applied).toEqual([false]);
    expect(login.view()).toMatchObject({ enabled: false, choice: false, unfinishedWork: true });
    expect(login.set(null)).toMatchObject({ enabled: true, choice: null });
    expect(applied).toEqual([false, true]);
    expect(store.get(LOGIN_START_KEY)).toBeNull();
    login.set(true);
    expect(store.get(LOGIN_START_KEY)).toBe(true);
    // Set again, applied again: the person's click is carried out even when it reads as before.
    expect(applied).toEqual([false, true, true]);
  });

  it('back to the default before the queue said anything: no work known, so off, not left as the choice had it', () => {
    const { applied, login } = make(true);
    login.start();
    expect(login.set(null)).toEqual({
      enabled: false,
      choice: null,
      unfinishedWork: false,
      supported: true,
      error: null,
    });
    expect(applied).toEqual([true, false]);
    login.onTotals(totals(1, 0));
    expect(applied).toEqual([true, false, true]);
  });

  it('says why it could not be applied, and applies nothing where the system offers nothing', () => {
    const store = new Map<string, unknown>();
    const failing = new LoginStart({
      store: { get: (k) => store.get(k), set: (k, v) => store.set(k, v) },
      supported: true,
      apply: () => {
        throw new Error('EACCES: permission denied');
      },
    });
    expect(failing.set(true)).toMatchObject({
      enabled: true,
      error: 'Starting at login could not be turned on: EACCES: permission denied',
    });
    const { applied, login } = make(true, false);
    login.start();
    login.onTotals(totals(1, 0));
    expect(applied).toEqual([]);
    expect(login.view()).toMatchObject({ enabled: false, supported: false });
  });

  it('answers the two shell channels', async () => {
    const { login } = make();
    const h = login.handlers();
    expect(await h['capture:loginStart.set']({ enabled: true })).toMatchObject({ enabled: true, choice: true });
    expect(await h['capture:loginStart.get']()).toMatchObject({ enabled: true, choice: true });
  });
});
