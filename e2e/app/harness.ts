import type { Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppCoreOptions } from '../../main/app-core.js';
import { AppCore } from '../../main/app-core.js';
import type { IpcDispatcher } from '../../main/ipc/dispatch.js';
import { createIpcDispatcher } from '../../main/ipc/dispatch.js';
import type { KeyValueStore, SecretBox } from '../../main/settings.js';
import { apiFunctionNames } from '../../shared/ipc.js';
import type { TestService } from '../service/testing.js';
import { startTestService } from '../service/testing.js';

/**
 * Runs the desktop app's core in the Playwright test process, as the Electron shell would in the
 * main process: the same AppCore, the same IPC dispatcher and handlers, the real engine, queue and
 * local service. `window.api` in the page is built from the same contract as the preload's and
 * reaches the dispatcher through Playwright's exposeBinding, with the calling frame as the sender.
 */
export class AppHarness {
  core!: AppCore;
  private dispatch!: IpcDispatcher;
  readonly store = new Map<string, unknown>();
  pickResult: string[] = [];
  private constructor(
    readonly page: Page,
    readonly svc: TestService,
    readonly dataDir: string,
    private readonly appOrigin: string,
    private readonly localServiceOffered: boolean,
    private readonly engine?: AppCoreOptions['engine'],
  ) {}

  /**
   * Starts the service and the core, and wires the page (before its first navigation). With
   * `localService: false` the core is set up as in the packaged app, where the local test service
   * cannot be loaded (the service still runs, for tests that configure it as a real one).
   */
  static async start(page: Page, appOrigin: string, opts: { localService?: boolean; service?: TestService; engine?: AppCoreOptions['engine'] } = {}): Promise<AppHarness> {
    // `service`: one started elsewhere (the app benchmark runs it in a process of its own).
    const svc = opts.service ?? (await startTestService());
    const h = new AppHarness(page, svc, mkdtempSync(join(tmpdir(), 'app-e2e-')), appOrigin, opts.localService ?? true, opts.engine);
    await h.boot();
    await page.exposeBinding('__captureInvoke', ({ frame }, channel: string, arg: unknown) =>
      h.dispatch(channel, arg, { url: frame.url(), isTopFrame: frame.parentFrame() === null }),
    );
    await page.addInitScript((names: (readonly [string, string])[]) => {
      const w = window as unknown as Record<string, unknown>;
      const listeners = new Map<string, Set<(p: unknown) => void>>();
      w.__captureEmit = (event: string, payload: unknown) => listeners.get(event)?.forEach((l) => l(payload));
      w.__capturePaths = {};
      const invoke = w.__captureInvoke as (c: string, a: unknown) => Promise<unknown>;
      const api: Record<string, unknown> = {};
      for (const [channel, name] of names) api[name] = (arg?: unknown) => invoke(channel, arg);
      api.on = (event: string, l: (p: unknown) => void) => {
        if (!listeners.has(event)) listeners.set(event, new Set());
        listeners.get(event)!.add(l);
        return () => listeners.get(event)!.delete(l);
      };
      // Electron's webUtils.getPathForFile, for files the test dropped: by name.
      api.getPathForFile = (file: File) => (w.__capturePaths as Record<string, string>)[file.name] ?? '';
      w.api = Object.freeze(api);
    }, apiFunctionNames);
    return h;
  }

  private async boot(): Promise<void> {
    const store: KeyValueStore = { get: (k) => this.store.get(k), set: (k, v) => this.store.set(k, v) };
    // A stand-in for safeStorage: reversible, and visibly not clear text.
    const secrets: SecretBox = {
      available: () => true,
      encrypt: (s) => `sealed:${Buffer.from(s).toString('base64')}`,
      decrypt: (s) => Buffer.from(s.slice('sealed:'.length), 'base64').toString(),
    };
    const svc = this.svc;
    this.core = new AppCore({
      dataDir: this.dataDir,
      store,
      secrets,
      emit: (event, payload) => {
        void this.page.evaluate(([e, p]) => (window as unknown as { __captureEmit?: (e: string, p: unknown) => void }).__captureEmit?.(e, p), [event, payload] as const).catch(() => undefined);
      },
      pickFiles: async () => this.pickResult,
      // A stand-in for the shell's power-save blocker, always granted, as on a desktop.
      busy: (working) => working,
      engine: this.engine,
      // The service outlives app restarts in these tests, as a real one would; the core gets only
      // its ready info, as from the package.
      startLocalService: this.localServiceOffered ? async () => ({ info: svc.info, close: async () => {} }) : undefined,
    });
    await this.core.start();
    this.dispatch = createIpcDispatcher(this.core.handlers(), (url) => url.startsWith(this.appOrigin));
  }

  /** Closes the app's core (uploads stop where they are) and starts a new one on the same data: an app restart. */
  async restart(): Promise<void> {
    await this.core.close();
    await this.boot();
    await this.page.reload();
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

  async stop(): Promise<void> {
    await this.core.close();
    await this.svc.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
