// The thin Electron shell: the only code that imports `electron` (CONVENTIONS.md, "Where code
// lives"). Window, tray, menus, ipcMain wiring, safeStorage, powerSaveBlocker, notifications and
// the login item live here, and updates (main/updates/ checks the signed feed and drives
// electron-updater's autoUpdater; installed only at quit, after the drain:
// docs/decisions/0017-updates.md, docs/decisions/0036-updates-tuf.md); everything they drive
// (AppCore: engine, queue, API clients, IPC handlers) runs in the upload service's utility process
// (main/service/), so nothing it does blocks this thread, which runs every window's events, the
// tray and IPC, and a native crash there ends only that process. This file relays: a message
// from the renderer is checked at the IPC dispatch (main/ipc/dispatch.ts) and forwarded to the service,
// but for start at login, answered and applied here (docs/decisions/0018-login-start.md); the
// service's events reach the window on a port of its own (docs/decisions/0029-service-port.md).
import {
  BrowserWindow,
  MessageChannelMain,
  Menu,
  Notification,
  Tray,
  app,
  dialog,
  ipcMain,
  nativeImage,
  powerSaveBlocker,
  safeStorage,
  session,
  utilityProcess,
} from 'electron';
import Store from 'electron-store';
import electronUpdater from 'electron-updater';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { APP_ID, APP_NAME } from '../../shared/app-info.js';
import type { QueueHoldView, QueueTotals } from '../../shared/ipc.js';
import { WINDOW_PORT } from '../../shared/ipc.js';
import { queueState } from '../../shared/queue-state.js';
import { batchProgress } from '../../shared/batch-progress.js';
import { createIpcDispatcher, registerIpcHandlers } from '../ipc/dispatch.js';
import { findLocalService } from '../service/local-service.js';
import { ServiceHost } from '../service-host/host.js';
import { callDeadlineMessage, callDeadlineMs } from '../service-host/call-deadlines.js';
import type { SettingsFile } from '../service-host/host.js';
import type { SecretBox } from '../settings/settings.js';
import { SupportLog } from '../support/log-file.js';
import { defaultReportName } from '../support/report-name.js';
import { UpdateSettingsStore } from '../settings/update-settings.js';
import { UpdateFeed } from '../settings/update-feed.js';
import type { UpdateStatus, UpdaterPort } from '../updates/updates.js';
import { Updates, updateDetail, updateLine } from '../updates/updates.js';
import { LoginStart } from '../settings/login-start.js';
import { loginStartPlan, startedHidden } from '../settings/login-start-plan.js';

const here = fileURLToPath(new URL('.', import.meta.url));
// Bundled layout (npm run build:main): dist/main/electron/main.js, dist/preload/index.cjs, dist/renderer/.
const rendererDir = join(here, '../../renderer');
const rendererUrl = pathToFileURL(join(rendererDir, '/')).href;
const preloadPath = join(here, '../../preload/index.cjs');
const iconPath = join(app.getAppPath(), 'assets/icon.png');
// The update root the build pins (read-only in the asar; `npm run release:sign -- init` writes it):
// the only trust updates start from (docs/decisions/0036-updates-tuf.md). A build without one updates never.
const updateRoot = join(app.getAppPath(), 'assets/update-root.json');
// The service process's module: the bundle's second entry (package.json build:main) beside this
// file; from source (tests) the host starts main/service/worker.ts itself.
const serviceEntry = import.meta.url.endsWith('.js') ? join(here, 'service-worker.js') : undefined;

let win: BrowserWindow | undefined;
let tray: Tray | undefined;
let core: ServiceHost | undefined;
let working = false;
let blocker: number | undefined;
let quitting = false;
let totals: QueueTotals | undefined;
/** The queue-wide hold and the credentials refused, as the last rows event said them (for the queue's state in the tray). */
let stops: { hold: QueueHoldView | null; blocked: string | null } = { hold: null, blocked: null };
/** The tray line last shown: the menu is rebuilt only when it reads differently (totals come ten a second). */
let trayLine = '';
/**
 * The support log in the platform's log folder (`app.getPath('logs')`; main/support/log-file.ts):
 * the shell's messages and the service's it relays. The service writes its engine events to the
 * same daily file.
 */
let support: SupportLog | undefined;
/** A message on the console and in the support log. */
const log = {
  info: (m: string) => (support ? support.tee(console).info(m) : console.log(m)),
  warn: (m: string) => (support ? support.tee(console).warn(m) : console.warn(m)),
};
/** Updates (docs/decisions/0017-updates.md): made at start from the settings' feed address; off until then. */
let updates: Updates | undefined;

/** safeStorage as the core's SecretBox. On Linux without a keyring Electron falls back to a fixed key ("basic_text"): that is treated as no encryption, so secrets are refused rather than stored readable. */
const secrets: SecretBox = {
  available: () =>
    safeStorage.isEncryptionAvailable() &&
    (process.platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text'),
  encrypt: (plain) => safeStorage.encryptString(plain).toString('base64'),
  decrypt: (sealed) => safeStorage.decryptString(Buffer.from(sealed, 'base64')),
};

/**
 * Carries out the login-start plan for this system (main/settings/login-start-plan.ts,
 * docs/decisions/0018-login-start.md): the login item on macOS and Windows, the XDG autostart file on
 * Linux. Throws an Error a person can read when it cannot be done.
 */
function applyLoginStart(enabled: boolean): void {
  const plan = loginPlan(enabled);
  switch (plan.kind) {
    case 'login-item':
      app.setLoginItemSettings(plan.settings);
      return;
    case 'autostart-file':
      if (plan.contents === null) rmSync(plan.path, { force: true });
      else {
        mkdirSync(dirname(plan.path), { recursive: true });
        writeFileSync(plan.path, plan.contents);
      }
      return;
    case 'unsupported':
      throw new Error(plan.reason);
  }
}

/** The login-start plan for this system and executable; run as `electron <folder>` (process.defaultApp), the folder is passed too. */
function loginPlan(enabled: boolean) {
  return loginStartPlan(
    process.platform,
    app.getPath('exe'),
    enabled,
    process.env,
    process.defaultApp ? [app.getAppPath()] : [],
  );
}

/** The window, made when there is none (a login start opened only the tray), and shown. */
function showWindow(): void {
  (win ?? (win = createWindow())).show();
  win.focus();
}

/**
 * Gives the window a port straight to the upload service (docs/decisions/0029-service-port.md): one end
 * of a MessageChannelMain to the service's utility process, the other to the window, whose preload
 * keeps it and delivers its events through `api.on`. The window's calls still go through the IPC dispatch
 * (main/ipc/dispatch.ts). Done at each load of the window and each start of the service (a port
 * dies with either end); where the service cannot take one, the host relays the events.
 */
function connectWindow(): void {
  if (!win || win.isDestroyed() || !core) return;
  const { port1, port2 } = new MessageChannelMain();
  if (core.connectWindow(port1)) win.webContents.postMessage(WINDOW_PORT, null, [port2]);
  else {
    port1.close();
    port2.close();
  }
}

function createWindow(): BrowserWindow {
  const w = new BrowserWindow({
    width: 1200,
    height: 860,
    minWidth: 820,
    minHeight: 560,
    title: APP_NAME,
    icon: iconPath,
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  w.once('ready-to-show', () => w.show());
  // Closing the window keeps uploads going in the tray while the queue has work.
  w.on('close', (event) => {
    if (quitting || !working) return;
    event.preventDefault();
    w.hide();
    new Notification({
      title: APP_NAME,
      body: 'Uploads continue in the background. Quit from the tray icon to stop them.',
    }).show();
  });
  // Each load (and reload) of the page gets a port of its own: its preload kept the last one.
  w.webContents.on('did-finish-load', () => connectWindow());
  w.loadFile(join(rendererDir, 'index.html')).catch((err: unknown) =>
    console.error(`The window could not load: ${String(err)}`),
  );
  return w;
}

/**
 * The tray's first line and tooltip: the queue's state as the window's headline says it
 * (shared/queue-state.ts) with the batch's percentage and files (shared/batch-progress.ts),
 * `Uploading: 43% · 12 of 200 files`, `Waiting for storage: 43% · 12 of 200 files · since 19:42 · … · nothing lost`.
 */
function progressLine(): string {
  if (!totals) return working ? 'Uploading…' : 'Idle: nothing to upload';
  const state = queueState(totals, stops);
  if (state.kind === 'idle') return 'Idle: nothing to upload';
  const p = batchProgress(totals);
  const line = `${state.headline}: ${p.percent}% · ${p.filesDone} of ${p.files} files${totals.needYou && state.kind !== 'needs-you' ? ` · ${totals.needYou} need you` : ''}`;
  return state.detail ? `${line} · ${state.detail}` : line;
}

/** Where updates stand: off until start has read the settings. */
function updateStatus(): UpdateStatus {
  return updates?.status ?? { version: app.getVersion(), state: 'off', next: null, problem: null, checkedAt: null };
}

/** The about box: the version, and where updates stand (ready to install at quit, downloading, off...). */
function showAbout(): void {
  const status = updateStatus();
  void dialog
    .showMessageBox({
      type: 'info',
      title: `About ${APP_NAME}`,
      message: `${APP_NAME} ${status.version}`,
      detail: updateDetail(status),
      buttons: ['OK'],
    })
    .catch((err: unknown) => console.error(`The about box could not be shown: ${String(err)}`));
}

function updateTray(): void {
  const line = progressLine();
  const status = updateStatus();
  const version = updateLine(status);
  if (`${line}\n${version}` === trayLine) return;
  trayLine = `${line}\n${version}`;
  tray?.setToolTip(
    `${APP_NAME} ${status.version}: ${line}${status.state === 'ready' ? ` · update ready: ${status.next}, installs when you quit` : ''}`,
  );
  const queue = (channel: 'capture:queue.pause' | 'capture:queue.resume') => () =>
    void core?.call(channel, { all: true });
  tray?.setContextMenu(
    Menu.buildFromTemplate([
      { label: line, enabled: false },
      { label: version, enabled: false },
      { label: 'Pause all', click: queue('capture:queue.pause') },
      { label: 'Resume all', click: queue('capture:queue.resume') },
      { label: 'Open Capture Uploader', click: showWindow },
      { label: `About ${APP_NAME}`, click: showAbout },
      { type: 'separator' },
      {
        label: 'Quit',
        click: () => {
          quitting = true;
          app.quit();
        },
      },
    ]),
  );
}

/**
 * Help › "Save a report for support…": a save dialog, then the service writes the report
 * (main/support/support-report.ts, through ServiceHost.report) where the person chose; a notification
 * says where it is, an error box why it could not be written.
 */
async function saveReport(): Promise<void> {
  const options = {
    title: 'Save a report for support',
    defaultPath: join(app.getPath('documents'), defaultReportName()),
    filters: [{ name: 'Zip archive', extensions: ['zip'] }],
  };
  const choice =
    win && !win.isDestroyed() ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options);
  if (choice.canceled || !choice.filePath) return;
  const answer = core
    ? await core.report(choice.filePath, {
        electron: process.versions.electron,
        chrome: process.versions.chrome,
        appVersion: app.getVersion(),
        // Where updates stand, as the tray and the about box say it (main/updates/updates.ts).
        updates: updateLine(updateStatus()),
        updatesDetail: updateDetail(updateStatus()),
        updatesCheckedAt: updateStatus().checkedAt ?? undefined,
      })
    : { ok: false as const, error: 'The upload service is not running.' };
  if (answer.ok) {
    log.info(`Report for support saved to ${answer.value.out}`);
    if (Notification.isSupported())
      new Notification({
        title: 'Report saved',
        body: `${answer.value.out}: send it to support. It holds no password, key or token.`,
      }).show();
  } else {
    log.warn(`The report for support could not be saved: ${answer.error}`);
    dialog.showErrorBox('The report could not be saved', answer.error);
  }
}

/** The application menu: the platform's usual menus, and Help with "Save a report for support…". */
function setAppMenu(): void {
  const mac = process.platform === 'darwin';
  Menu.setApplicationMenu(
    Menu.buildFromTemplate([
      ...(mac ? [{ role: 'appMenu' as const }] : []),
      { role: 'fileMenu' },
      { role: 'editMenu' },
      { role: 'viewMenu' },
      { role: 'windowMenu' },
      {
        role: 'help',
        submenu: [
          {
            label: 'Save a report for support…',
            click: () =>
              void saveReport().catch((err: unknown) =>
                log.warn(`The report for support could not be saved: ${String(err)}`),
              ),
          },
        ],
      },
    ]),
  );
}

/** The taskbar or dock shows the whole queue's progress while it uploads; the tray says it in words. */
function showTotals(t: QueueTotals): void {
  totals = t;
  if (win && !win.isDestroyed()) win.setProgressBar(working && t.bytesTotal ? t.bytesDone / t.bytesTotal : -1);
  updateTray();
}

/** Holds the power-save blocker while the queue has work; answers whether it is held (the queue screen says so). */
function setWorking(now: boolean): boolean {
  working = now;
  if (!now && win && !win.isDestroyed()) win.setProgressBar(-1);
  // Keep the computer awake while the queue drains (left running overnight); release when idle.
  if (now && blocker === undefined) blocker = powerSaveBlocker.start('prevent-app-suspension');
  if (!now && blocker !== undefined) {
    powerSaveBlocker.stop(blocker);
    blocker = undefined;
  }
  updateTray();
  return blocker !== undefined && powerSaveBlocker.isStarted(blocker);
}

async function start(): Promise<void> {
  // Nothing this app shows needs a permission (camera, location, notifications from pages...).
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);

  support = new SupportLog({ dir: app.getPath('logs'), source: 'app' });
  log.info(
    `Capture Uploader ${app.getVersion()} started (Electron ${process.versions.electron ?? '?'}, ${process.platform} ${process.arch})`,
  );
  setAppMenu();
  const store = new Store<Record<string, unknown>>({ name: 'settings' });
  // electron-store refuses undefined ("Use `delete()` to clear values"): a value the service forgets is deleted.
  const settings: SettingsFile = {
    get: (k) => store.get(k),
    set: (k, v) => (v === undefined ? store.delete(k) : store.set(k, v)),
    snapshot: () => ({ ...store.store }),
  };
  // Start at login: the person's choice at once; the default (on while the queue holds unfinished work) once the service's totals say.
  const login = new LoginStart({
    store: settings,
    supported: loginPlan(true).kind !== 'unsupported',
    apply: applyLoginStart,
  });
  login.start();
  // The update feed in Settings: a new address is stored and followed at once (docs/decisions/0017-updates.md).
  const feed = new UpdateFeed({
    store: settings,
    apply: (feedUrl) => {
      updates?.setFeed(feedUrl);
      updateTray();
    },
    status: () => ({ state: updateStatus().state, status: updateDetail(updateStatus()) }),
  });
  core = new ServiceHost({
    entry: serviceEntry,
    utility: utilityProcess,
    dataDir: app.getPath('userData'),
    logDir: app.getPath('logs'),
    store: settings,
    secrets,
    // The events the service could not post on the window's port (none has been handed over yet,
    // or the service runs under fork), and those the host itself says.
    emit: (event, payload) => win?.webContents.send(event, payload),
    stops: (s) => void (stops = s),
    serviceStarted: () => connectWindow(),
    pickFiles: async () => {
      const res = await dialog.showOpenDialog(win!, {
        title: 'Choose recordings',
        properties: ['openFile', 'openDirectory', 'multiSelections'],
        filters: [{ name: 'Recordings', extensions: ['insv', 'mp4', 'csv'] }],
      });
      return res.canceled ? [] : res.filePaths;
    },
    // Loaded only when chosen; the packaged app does not contain it, so there it is not offered.
    localService: !app.isPackaged && findLocalService() ? 'find' : null,
    notify: (title, body) => Notification.isSupported() && new Notification({ title, body }).show(),
    busy: setWorking,
    totals: (t) => {
      login.onTotals(t);
      showTotals(t);
    },
    log,
  });
  registerIpcHandlers(
    ipcMain,
    // Every call is answered within its deadline, the shell's own channels too (main/service-host/call-deadlines.ts).
    createIpcDispatcher(
      { ...core.handlers(), ...login.handlers(), ...feed.handlers() },
      (url) => url.startsWith(rendererUrl),
      { ms: callDeadlineMs, message: callDeadlineMessage },
    ),
  );
  updates = new Updates({
    version: app.getVersion(),
    feedUrl: new UpdateSettingsStore(settings).get().feedUrl,
    trust: {
      rootPath: existsSync(updateRoot) ? updateRoot : '',
      cacheDir: join(app.getPath('userData'), 'updates'),
      appId: APP_ID,
    },
    // electron-updater's autoUpdater is made on first use (it picks the installer type of this platform).
    updater: () => electronUpdater.autoUpdater as unknown as UpdaterPort,
    onChange: () => updateTray(),
    onRequest: (file, bytes) => log.info(`Updates: read ${file} from the feed (${bytes} bytes).`),
    log,
  });
  tray = new Tray(nativeImage.createFromPath(iconPath).resize({ width: 18, height: 18 }));
  tray.on('click', showWindow);
  updateTray();
  // A login start opens only the tray; the service below starts and drains the queue either way.
  if (
    !startedHidden(
      process.argv,
      process.platform,
      process.platform === 'darwin' ? app.getLoginItemSettings() : undefined,
    )
  )
    win = createWindow();
  // Never rejects for the queue: a queue that cannot open is the service's status, which the
  // window shows with what to do; the window and tray are open before it.
  try {
    const status = await core.start();
    if (status.queueError) log.warn(status.queueError);
  } catch (err) {
    // The service could not even be started (a broken installation): the window is open anyway.
    log.warn(`The upload service could not be started: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Checked in the background once the window and the service are up.
  updates.start();
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.setAppUserModelId(APP_ID);
  // Opening the app again (its icon) while it runs, perhaps in the tray only since a login start, shows its window.
  app.on('second-instance', showWindow);
  // Every web contents: no navigation away from the app's files, no new windows, no webviews.
  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-navigate', (event) => event.preventDefault());
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
  app.on('window-all-closed', () => {
    if (!working) app.quit();
  });
  app.on('before-quit', (event) => {
    if (!core) return;
    // Let the engine stop cleanly: parts in flight are abandoned, stored parts and the queue are kept.
    event.preventDefault();
    quitting = true;
    const c = core;
    core = undefined;
    // Marked void: every step's failure is caught in the chain, and app.quit() runs in any case.
    void c
      .close()
      .catch((err: unknown) => console.error(`Closing the upload service failed: ${String(err)}`))
      // Only now, with the engine stopped and no part on the wire, may a downloaded update
      // install (docs/decisions/0017-updates.md), once its installer is checked against its signed
      // entry again; the installer runs as the app ends. installOnQuit never rejects.
      .then(() => updates?.installOnQuit())
      .finally(() => app.quit());
  });
  app
    .whenReady()
    .then(start)
    .catch((err: unknown) => console.error(`Capture Uploader could not start: ${String(err)}`));
}
