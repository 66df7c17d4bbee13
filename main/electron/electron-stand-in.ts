// A recording stand-in for the `electron` module (the Electron binary cannot run on this
// machine): what the shell asks of Electron (window options, handlers, blockers, notifications)
// is recorded in `rec` for the shell's tests (main.test.ts, start-error.test.ts, updates-shell.test.ts, login-start-shell.test.ts) to check.
// Each test file gets its own module instance, so its own records. Its `utilityProcess.fork`
// really starts the module in a child process (child_process.fork with the structured-clone
// channel; the service then talks over `process.send`, where in Electron it has `process.parentPort`).
import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sourceExecArgv } from '../service-host/spawn.js';
import { StandInChannel, StandInPort } from './stand-in-port.js';

/** The child's side of the stand-in's utility process: Electron's process.parentPort. */
const PARENT_PORT = fileURLToPath(new URL('./stand-in-parent-port.mjs', import.meta.url));

/** A menu item as the shell builds it (Menu.buildFromTemplate's template). */
export interface MenuItem {
  label?: string;
  role?: string;
  submenu?: MenuItem[];
  click?: () => void;
}

/** What the shell asked of Electron so far. `savePath`: what the next save dialog answers (undefined: cancelled). */
export const rec = (() => {
  type Listener = (...args: unknown[]) => unknown;
  const handlers = new Map<string, Listener>();
  const appEvents = new Map<string, Listener[]>();
  const windows: {
    options: Record<string, unknown>;
    events: Map<string, Listener[]>;
    hidden: boolean;
    loaded?: string;
    sent: [string, unknown][];
    /** The ports handed to the window (webContents.postMessage), with the message's channel. */
    ports: { channel: string; port: StandInPort }[];
    /** The events that reached the window on its port, straight from the service process. */
    viaPort: [string, unknown][];
  }[] = [];
  const contentsHooks = { navigate: [] as Listener[], webview: [] as Listener[], windowOpen: [] as Listener[] };
  const state = {
    permission: undefined as undefined | Listener,
    permissionCheck: undefined as undefined | Listener,
    blockers: [] as number[],
    stopped: [] as number[],
    notifications: [] as { title: string; body: string }[],
    singleInstance: 0,
    progressBar: [] as number[],
    tooltips: [] as string[],
    menus: [] as { label?: string; click?: () => void }[][],
    messageBoxes: [] as Record<string, unknown>[],
    quits: 0,
    utility: [] as { modulePath: string; options: unknown; child: ChildProcess }[],
    /** The ports handed to a utility process (its postMessage's transfer). */
    portsToService: [] as StandInPort[],
    appMenu: undefined as undefined | MenuItem[],
    saveDialogs: [] as { defaultPath?: string; filters?: unknown }[],
    savePath: undefined as string | undefined,
    errorBoxes: [] as { title: string; content: string }[],
    loginItems: [] as Record<string, unknown>[],
    openedAtLogin: { wasOpenedAsHidden: false, wasOpenedAtLogin: false },
  };
  let ready!: () => void;
  const whenReadyPromise = new Promise<void>((r) => (ready = r));
  return { handlers, appEvents, windows, contentsHooks, state, whenReadyPromise, ready: () => ready() };
})();

/** The executable's path the stand-in's `app.getPath('exe')` answers. */
export const EXE = '/opt/Capture Uploader/capture-uploader';

/**
 * The `electron` module's stand-in, with `app.getPath('userData')` answering `userData`,
 * `app.getPath('exe')` EXE, and `app.getAppPath()` the checkout, or `opts.appPath` (a test's
 * own app folder, such as one holding the update root a build ships).
 */
export function electronModule(userData: string, opts: { appPath?: string } = {}) {
  const on = (map: Map<string, ((...a: unknown[]) => unknown)[]>, e: string, l: (...a: unknown[]) => unknown) =>
    map.set(e, [...(map.get(e) ?? []), l]);
  class BrowserWindow {
    private w: (typeof rec.windows)[number];
    webContents: {
      send: (c: string, p: unknown) => void;
      postMessage: (c: string, p: unknown, ports: StandInPort[]) => void;
      on: (e: string, l: () => void) => void;
    };
    constructor(options: Record<string, unknown>) {
      this.w = { options, events: new Map(), hidden: true, sent: [], ports: [], viaPort: [] };
      rec.windows.push(this.w);
      this.webContents = {
        send: (c, p) => this.w.sent.push([c, p]),
        // As the preload does: keeps the port and takes each event posted on it (`{ event, payload }`).
        postMessage: (c, _p, ports) => {
          const port = ports[0]!;
          this.w.ports.push({ channel: c, port });
          port.on('message', ({ data }: { data: { event: string; payload: unknown } }) =>
            this.w.viaPort.push([data.event, data.payload]),
          );
          port.start();
        },
        on: (e, l) => on(this.w.events, `contents:${e}`, l),
      };
    }
    once(e: string, l: () => void) {
      on(this.w.events, e, l);
    }
    on(e: string, l: () => void) {
      on(this.w.events, e, l);
    }
    loadFile(f: string) {
      this.w.loaded = f;
      // The page has loaded: Electron's did-finish-load.
      setImmediate(() => (this.w.events.get('contents:did-finish-load') ?? []).forEach((l) => l()));
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
  const utilityProcess = {
    fork(modulePath: string, args: string[] = [], options: unknown = {}) {
      const child = fork(modulePath, args, {
        // Electron's process.parentPort, ports included, in the child (stand-in-parent-port.mjs).
        execArgv: [...sourceExecArgv(modulePath), '--import', PARENT_PORT],
        serialization: 'advanced',
        stdio: 'inherit',
      });
      rec.state.utility.push({ modulePath, options, child });
      return {
        get pid() {
          return child.pid;
        },
        postMessage: (m: unknown, transfer: unknown[] = []) => {
          const port = transfer.find((p): p is StandInPort => p instanceof StandInPort);
          if (!port) return void (child.connected && child.send(m as object, (err) => void err));
          rec.state.portsToService.push(port);
          // The port goes to the child as a local socket it connects to (stand-in-port.ts).
          void port.transfer().then((path) => {
            if (child.connected) child.send({ ...(m as object), __standInPort: path }, (err) => void err);
          });
        },
        on(e: 'message' | 'exit', l: (x: unknown) => void) {
          // Electron's 'exit' gives only a code; a process killed by a signal reports a code too.
          if (e === 'exit') child.once('exit', (code, signal) => l(code ?? (signal ? 128 : 0)));
          else child.on('message', l);
          return this;
        },
        kill: () => child.kill(),
      };
    },
  };
  const app = {
    // The log folder inside the user-data folder, as Electron's is on Windows (`…/logs`).
    getPath: (name: string) => (name === 'logs' ? join(userData, 'logs') : name === 'exe' ? EXE : userData),
    getAppPath: () => opts.appPath ?? process.cwd(),
    getVersion: () => '0.1.0',
    requestSingleInstanceLock: () => {
      rec.state.singleInstance++;
      return true;
    },
    setAppUserModelId: () => {},
    on: (e: string, l: (...a: unknown[]) => unknown) => on(rec.appEvents, e, l),
    whenReady: () => rec.whenReadyPromise,
    // The login item: what the shell set, and how this start was opened (macOS), as a test says.
    setLoginItemSettings: (s: Record<string, unknown>) => void rec.state.loginItems.push(s),
    getLoginItemSettings: () => ({ openAtLogin: false, openAsHidden: false, ...rec.state.openedAtLogin }),
    quit: () => {
      rec.state.quits++;
    },
  };
  const electron = {
    app,
    BrowserWindow,
    Notification,
    Tray,
    utilityProcess,
    MessageChannelMain: StandInChannel,
    Menu: { buildFromTemplate: (t: unknown) => t, setApplicationMenu: (m: MenuItem[]) => (rec.state.appMenu = m) },
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
    dialog: {
      showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
      showSaveDialog: async (...a: unknown[]) => {
        rec.state.saveDialogs.push(a.at(-1) as { defaultPath?: string });
        return rec.state.savePath
          ? { canceled: false, filePath: rec.state.savePath }
          : { canceled: true, filePath: '' };
      },
      showErrorBox: (title: string, content: string) => rec.state.errorBoxes.push({ title, content }),
      // Electron takes (window, options) or (options).
      showMessageBox: async (a: unknown, b?: unknown) => {
        rec.state.messageBoxes.push((b ?? a) as Record<string, unknown>);
        return { response: 0, checkboxChecked: false };
      },
    },
  };
  return { ...electron, default: electron };
}

/** What every new electron-store stand-in starts with (a test's settings file from before the start). */
export const storeSeed = new Map<string, unknown>();

/** electron-store's stand-in: a Map, as strict as electron-store about undefined. */
export const electronStoreModule = {
  default: class {
    private m = new Map<string, unknown>(storeSeed);
    get store(): Record<string, unknown> {
      return Object.fromEntries(this.m);
    }
    get(k: string) {
      return this.m.get(k);
    }
    // As electron-store: undefined is refused (it is not JSON), and delete() clears a key.
    set(k: string, v: unknown) {
      if (v === undefined) throw new TypeError('Use `delete()` to clear values');
      this.m.set(k, v);
    }
    delete(k: string) {
      this.m.delete(k);
    }
  },
};

/**
 * The IPC event of a call from the app's own window (its top frame at renderer/index.html), as
 * the shell's sender check (main/ipc/dispatch.ts) accepts it.
 */
export const appFrame = () => ({
  senderFrame: { url: pathToFileURL(join(process.cwd(), 'renderer/index.html')).href, parent: null },
});

/** Quits the shell as the app's Quit does (every `before-quit` listener), then waits 500 ms for the service to stop. */
export async function quitShell(): Promise<void> {
  for (const l of rec.appEvents.get('before-quit') ?? []) l({ preventDefault: () => {} });
  await new Promise((r) => setTimeout(r, 500));
}
