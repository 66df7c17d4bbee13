import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { Database } from '../../main/testing/queue-backdoors.js';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IpcDispatcher } from '../../main/ipc/dispatch.js';
import { createIpcDispatcher } from '../../main/ipc/dispatch.js';
import type { CaptureState, FileState } from '../../main/queue/queue.js';
import { UploadQueue } from '../../main/queue/queue.js';
import { ServiceHost } from '../../main/service-host/host.js';
import { callDeadlineMessage, callDeadlineMs } from '../../main/service-host/call-deadlines.js';
import type { SettingsFile } from '../../main/service-host/host.js';
import type { EngineTuning } from '../../main/service/protocol.js';
import type { HeartbeatOptions } from '../../main/service-host/heartbeat.js';
import type { CardWatchOptions } from '../../main/service/card-imports.js';
import type { SecretBox } from '../../main/settings/settings.js';
import { SettingsRepository } from '../../main/settings/settings.js';
import { LoginStart } from '../../main/settings/login-start.js';
import { UpdateFeed } from '../../main/settings/update-feed.js';
import { UpdateSettingsStore } from '../../main/settings/update-settings.js';
import { nodeUpdater } from '../../main/testing/node-updater.js';
import { Updates, updateDetail } from '../../main/updates/updates.js';
import { APP_ID } from '../../shared/app-info.js';
import type { ArgsOf, Channel, ResultOf } from '../../shared/ipc.js';
import { CANCEL_CHANNEL, apiFunctionNames } from '../../shared/ipc.js';
import type { TestService } from '../service/testing.js';
import { startTestService } from '../service/testing.js';
import { HarnessBytes } from './harness-bytes.js';

/**
 * Runs the desktop app as the Electron shell does: this process plays the main process (the IPC
 * dispatch and the service host, main/service-host/host.ts) and the upload service runs in its own
 * process (main/service/worker.ts: AppCore, the real engine, queue and local service).
 * `window.api` in the page is built from the same contract as the preload's and reaches the
 * dispatcher through Playwright's exposeBinding, with the calling frame as the sender.
 * The queue shows every file unless `foldedQueue` (the app's default view) is asked for.
 */
export class AppHarness {
  host!: ServiceHost;
  private dispatch!: IpcDispatcher;
  private queueDb?: Database.Database;
  readonly store = new Map<string, unknown>();
  pickResult: string[] = [];
  /** What the shell would have made of "start at login", each time it changed: a stand-in for the login item. */
  readonly loginApplied: boolean[] = [];
  /** The "start at login" setting, answered here as the shell answers it (SHELL_CHANNELS). */
  private login!: LoginStart;
  /** Each feed address the shell was told to follow (the update feed in Settings). */
  readonly feedApplied: string[] = [];
  /**
   * Updates as the shell runs them (main/updates/): the signed feed checked with the local
   * service's root as this build's, electron-updater's own updater under Node (never installing).
   */
  updates!: Updates;
  /** The update feed setting, answered here as the shell answers it (SHELL_CHANNELS). */
  private feed!: UpdateFeed;
  /** Carries the typed arrays of answers to the page as bytes, as Electron's IPC copies them (harness-bytes.ts). */
  private bytes!: HarnessBytes;
  /**
   * The page's last calls, newest last (at most 50): the channel, when the IPC dispatch had it and when it
   * answered (ms since 1970, this process's clock, which the page's `performance.timeOrigin +
   * performance.now()` shares). For benches that split a call's time (scripts/bench-assets.ts).
   */
  readonly calls: { channel: string; receivedAt: number; answeredAt: number }[] = [];
  private constructor(
    readonly page: Page,
    readonly svc: TestService,
    readonly dataDir: string,
    private readonly appOrigin: string,
    private readonly localServiceOffered: boolean,
    private readonly engine?: EngineTuning,
    private readonly cards?: CardWatchOptions,
    private readonly heartbeat?: Partial<HeartbeatOptions>,
  ) {}

  /**
   * Starts the service and the core, and wires the page (before its first navigation). With
   * `localService: false` the core is set up as in the packaged app, where the local test service
   * cannot be loaded (the service still runs, for tests that configure it as a real one).
   */
  static async start(
    page: Page,
    appOrigin: string,
    opts: {
      localService?: boolean;
      service?: TestService;
      engine?: EngineTuning;
      cards?: CardWatchOptions;
      foldedQueue?: boolean;
      /** The host's watch on the service process (default the app's, main/service-host/heartbeat.ts HEARTBEAT). */
      heartbeat?: Partial<HeartbeatOptions>;
    } = {},
  ): Promise<AppHarness> {
    // `service`: one started elsewhere (the app benchmark runs it in a process of its own).
    const svc = opts.service ?? (await startTestService());
    const h = new AppHarness(
      page,
      svc,
      mkdtempSync(join(tmpdir(), 'app-e2e-')),
      appOrigin,
      opts.localService ?? true,
      opts.engine,
      opts.cards,
      opts.heartbeat,
    );
    // The library folder in the test's own data, never the Videos folder of whoever runs the tests:
    // registering recordings writes their thumbnails there. Same name as the default.
    h.store.set('library', { library: join(h.dataDir, 'Videos', 'Capture Uploader') });
    await h.boot();
    h.bytes = await HarnessBytes.start(page, appOrigin);
    await page.exposeBinding('__captureInvoke', async ({ frame }, channel: string, arg: unknown, callId?: string) => {
      const receivedAt = performance.timeOrigin + performance.now();
      const answer = await h.dispatch(
        channel,
        arg,
        { url: frame.url(), isTopFrame: frame.parentFrame() === null },
        undefined,
        callId,
      );
      h.calls.push({ channel, receivedAt, answeredAt: performance.timeOrigin + performance.now() });
      if (h.calls.length > 50) h.calls.shift();
      return h.bytes.carry(answer);
    });
    await page.addInitScript(
      ([names, cancelChannel]: readonly [(readonly [string, string])[], string]) => {
        const w = window as unknown as Record<string, unknown>;
        const listeners = new Map<string, Set<(p: unknown) => void>>();
        w.__captureEmit = (event: string, payload: unknown) => listeners.get(event)?.forEach((l) => l(payload));
        w.__capturePaths = {};
        const carried = w.__captureInvoke as (
          c: string,
          a: unknown,
          callId?: string,
        ) => Promise<{ value: unknown; bytes: { path: (string | number)[]; type: string; url: string }[] }>;
        // Each typed array of the answer is fetched back as bytes and put where it was (harness-bytes.ts).
        // (A property, not a named const: tsx would wrap a named function in a helper the page lacks.)
        w.__captureInvokeWhole = async (c: string, a: unknown, callId?: string) => {
          const { value, bytes } = await carried(c, a, callId);
          for (const b of bytes) {
            const data = await (await fetch(b.url)).arrayBuffer();
            const Typed = (window as unknown as Record<string, new (buffer: ArrayBuffer) => unknown>)[b.type]!;
            let at = value as Record<string | number, unknown>;
            for (const k of b.path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
            at[b.path.at(-1)!] = new Typed(data);
          }
          return value;
        };
        const invoke = w.__captureInvokeWhole as (c: string, a: unknown, callId?: string) => Promise<unknown>;
        const api: Record<string, unknown> = {};
        for (const [channel, name] of names)
          api[name] = (arg?: unknown, call?: { callId?: string }) => invoke(channel, arg, call?.callId);
        api.cancel = (callId: string) => invoke(cancelChannel, { callId });
        api.on = (event: string, l: (p: unknown) => void) => {
          if (!listeners.has(event)) listeners.set(event, new Set());
          listeners.get(event)!.add(l);
          return () => listeners.get(event)!.delete(l);
        };
        // Electron's webUtils.getPathForFile, for files the test dropped: by name.
        api.getPathForFile = (file: File) => (w.__capturePaths as Record<string, string>)[file.name] ?? '';
        w.api = Object.freeze(api);
      },
      [apiFunctionNames, CANCEL_CHANNEL] as const,
    );
    // The queue folds each capture's files and batches of completed captures; tests
    // that read file rows see the view of every file ("Show every file", kept in localStorage)
    // unless they ask for the folded one.
    if (!opts.foldedQueue) await page.addInitScript(() => localStorage.setItem('queue-show-every-file', 'true'));
    return h;
  }

  /** A stand-in for safeStorage: reversible, and visibly not clear text. */
  private readonly secrets: SecretBox = {
    available: () => true,
    encrypt: (s) => `sealed:${Buffer.from(s).toString('base64')}`,
    decrypt: (s) => Buffer.from(s.slice('sealed:'.length), 'base64').toString(),
  };

  private readonly kv: SettingsFile = {
    get: (k) => this.store.get(k),
    set: (k, v) => this.store.set(k, v),
    snapshot: () => Object.fromEntries(this.store),
  };

  private async boot(): Promise<void> {
    this.login = new LoginStart({
      store: this.kv,
      supported: true,
      apply: (enabled) => void this.loginApplied.push(enabled),
    });
    this.updates?.stop();
    const pinned = join(this.dataDir, 'update-root.json');
    if (!existsSync(pinned)) copyFileSync(this.svc.info.updatesRoot, pinned);
    this.updates = new Updates({
      version: '0.1.0',
      feedUrl: new UpdateSettingsStore(this.kv).get().feedUrl,
      trust: {
        rootPath: pinned,
        cacheDir: join(this.dataDir, 'updates'),
        appId: APP_ID,
        platform: 'linux',
        arch: 'x64',
      },
      updater: () => nodeUpdater(join(this.dataDir, 'updater'), () => {}).updater,
      every: () => () => {},
    });
    this.updates.start();
    this.feed = new UpdateFeed({
      store: this.kv,
      apply: (feedUrl) => {
        this.feedApplied.push(feedUrl);
        this.updates.setFeed(feedUrl);
      },
      status: () => ({ state: this.updates.status.state, status: updateDetail(this.updates.status) }),
    });
    this.host = new ServiceHost({
      dataDir: this.dataDir,
      store: this.kv,
      secrets: this.secrets,
      emit: (event, payload) => {
        void this.page
          .evaluate(
            ([e, p]) =>
              (window as unknown as { __captureEmit?: (e: string, p: unknown) => void }).__captureEmit?.(e, p),
            [event, payload] as const,
          )
          .catch(() => undefined);
      },
      pickFiles: async () => this.pickResult,
      // A stand-in for the shell's power-save blocker, always granted, as on a desktop.
      busy: (working) => working,
      totals: (totals) => this.login.onTotals(totals),
      engine: this.engine,
      // Where cards are looked for: a folder of the test's own (a card is "mounted" by writing it there).
      cards: this.cards,
      // The service outlives app restarts in these tests, as a real one would; the worker gets
      // only its ready info, as from the package.
      localService: this.localServiceOffered ? { info: this.svc.info } : null,
      heartbeat: this.heartbeat,
    });
    await this.host.start();
    this.login.start();
    this.dispatch = createIpcDispatcher(
      { ...this.host.handlers(), ...this.login.handlers(), ...this.feed.handlers() },
      (url) => url.startsWith(this.appOrigin),
      { ms: callDeadlineMs, message: callDeadlineMessage },
    );
  }

  /** Calls a channel in the service worker as the window would (not through the IPC dispatch); throws the envelope's error. */
  async invoke<C extends Channel>(
    channel: C,
    ...args: ArgsOf<C> extends void ? [] : [ArgsOf<C>]
  ): Promise<ResultOf<C>> {
    const answer = await this.host.call(channel, args[0]);
    if (!answer.ok) throw new Error(answer.error);
    return answer.value;
  }

  /** The settings as stored by the service (the host keeps the settings file), read here. */
  get settings(): SettingsRepository {
    return new SettingsRepository(this.kv, this.secrets);
  }

  /**
   * The queue the worker uses, through a connection of this test process (WAL: reads see what the
   * worker committed; writes wait for its lock). For checks and seeding only: what is written here
   * reaches the window after a reload, not as events.
   */
  queue(): UploadQueue {
    if (!this.queueDb) {
      this.queueDb = new Database(join(this.dataDir, 'queue', 'queue.db'));
      this.queueDb.pragma('foreign_keys = ON');
      this.queueDb.pragma('busy_timeout = 5000');
    }
    return new UploadQueue(this.queueDb);
  }

  /** Closes the app's service (uploads stop where they are) and starts a new one on the same data: an app restart. */
  async restart(): Promise<void> {
    this.closeQueue();
    await this.host.close();
    await this.boot();
    await this.page.reload();
  }

  private closeQueue(): void {
    this.queueDb?.close();
    this.queueDb = undefined;
  }

  /** Drops files on the drop zone, as a person dragging them from a file manager. */
  async drop(paths: string[]): Promise<void> {
    await this.page.getByTestId('dropzone').waitFor();
    const names = paths.map((p) => p.split('/').pop()!);
    await this.page.evaluate(
      ([pathsByName, list]) => {
        const w = window as unknown as { __capturePaths: Record<string, string> };
        Object.assign(w.__capturePaths, pathsByName);
        const dt = new DataTransfer();
        for (const n of list) dt.items.add(new File(['x'], n));
        const zone = document.querySelector('[data-testid="dropzone"]')!;
        zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      },
      [Object.fromEntries(names.map((n, i) => [n, paths[i]!])), names] as const,
    );
  }

  /** How many of the queue's files are in `state` now (read from queue.db). */
  filesIn(state: FileState): number {
    return this.queue()
      .allFiles()
      .filter((f) => f.state === state).length;
  }

  /** How many of the queue's captures are in `state` now (read from queue.db). */
  capturesIn(state: CaptureState): number {
    return this.queue()
      .captures()
      .filter((c) => c.state === state).length;
  }

  async stop(): Promise<void> {
    this.closeQueue();
    this.updates?.stop();
    this.bytes?.stop();
    await this.host.close();
    await this.svc.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** The renderer's origin as `vite preview` serves it for the browser tests (E2E_PORT, default 4173). */
const ORIGIN = `http://127.0.0.1:${process.env.E2E_PORT ?? 4173}`;

/** How `useApp` starts each test's app. */
export interface UseAppOptions {
  /** Watch `<work>/media` as a mount folder for cards (polled every 300 ms), as the app watches /media/$USER. */
  mounts?: boolean;
  /** With `mounts`: every copy waits for `<work>/copies-may-verify` before its read-back (CardWatchOptions.copyGate). */
  copyGate?: boolean;
  /** The window's size before the first page (e.g. SIZES.large); the page's default when not given. */
  viewport?: { width: number; height: number };
  /**
   * How the test service is chosen: `click` (default) presses "Use the local test service" on the
   * first page and waits for the drop zone; `invoke` calls `capture:settings.useLocalService`
   * before the first page and waits for the Queue heading; `none` only starts the app (the test
   * loads its first page itself).
   */
  setUp?: 'click' | 'invoke' | 'none';
  /** Runs before the app stops after each test (e.g. lifting a bandwidth cap). */
  beforeStop?: (app: AppTest) => void | Promise<void>;
  /** The host's watch on the service process (default the app's): a test of a hang shortens its deadline. */
  heartbeat?: Partial<HeartbeatOptions>;
}

/** One browser test's app: the harness, its work folder and, with `mounts`, the watched mount folder. */
export interface AppTest {
  readonly h: AppHarness;
  /** A fresh temporary folder (absolute), deleted after the test. */
  readonly work: string;
  /** `<work>/media` when `mounts` was asked for. */
  readonly mounts: string;
  /** `<work>/copies-may-verify` when `copyGate` was asked for: writing it lets the copies verify. */
  readonly gate: string;
}

/**
 * Loads the first page and presses "Use the local test service", as a person does on a first run;
 * resolves once the upload screen's drop zone shows.
 */
export async function chooseLocalService(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByRole('button', { name: 'Use the local test service' }).click();
  await expect(page.getByText('Drop Insta360 recordings here')).toBeVisible();
}

/**
 * Registers `beforeEach`/`afterEach` hooks of a browser test file (call it at the file's top
 * level): a work folder named after `prefix`, the app started on it against the local service,
 * the first page loaded and set up with "Use the local test service" until the drop zone shows;
 * after the test, the app stopped and the folder deleted. The returned object's fields are the
 * running test's.
 */
export function useApp(prefix: string, opts: UseAppOptions = {}): AppTest {
  const app = { h: undefined as unknown as AppHarness, work: '', mounts: '', gate: '' };
  test.beforeEach(async ({ page }) => {
    app.work = mkdtempSync(join(tmpdir(), `${prefix}-`));
    app.mounts = join(app.work, 'media');
    app.gate = join(app.work, 'copies-may-verify');
    if (opts.mounts) mkdirSync(app.mounts);
    const cards = opts.mounts
      ? { roots: [app.mounts], pollMs: 300, ...(opts.copyGate ? { copyGate: app.gate } : {}) }
      : undefined;
    app.h = await AppHarness.start(page, ORIGIN, { ...(cards ? { cards } : {}), heartbeat: opts.heartbeat });
    if (opts.viewport) await page.setViewportSize(opts.viewport);
    if (opts.setUp === 'none') return;
    if (opts.setUp === 'invoke') {
      await app.h.invoke('capture:settings.useLocalService');
      await page.goto('/');
      await expect(page.getByRole('heading', { name: 'Queue' })).toBeVisible();
      return;
    }
    await chooseLocalService(page);
  });
  test.afterEach(async () => {
    try {
      await opts.beforeStop?.(app);
      await app.h?.stop();
    } finally {
      if (app.work) rmSync(app.work, { recursive: true, force: true });
    }
  });
  return app;
}
