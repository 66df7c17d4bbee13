// `npm run bench -- --only main-thread`: the thread that plays the Electron main
// process, measured while the upload service drains 10,000 small files at full speed and runs
// pause all / resume all. The service runs as the app runs it (main/service-host/host.ts and its own
// process); for comparison, the same run with AppCore on this thread, as before. The local
// service is a child process, so its work is not on the measured thread. Figures, not assertions.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IntervalHistogram } from 'node:perf_hooks';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { AppCore } from '../../main/service/app-core.js';
import { ServiceHost } from '../../main/service-host/host.js';
import type { Channel, CaptureForm, Envelope, InspectResult, QueueTotals, SettingsView } from '../../shared/ipc.js';
import type { LocalServiceInfo } from '../../e2e/service/index.js';
import type { Figure } from './figures.js';
import { serviceProcess } from './service-process.js';

/** The event-loop delay target on the thread that plays the Electron main process (ms, p99). */
const P99_TARGET_MS = 20;

/** Writes a card of `pairs` dual-lens recordings (two `bytes`-byte lenses each, a minute apart) under `dir`. */
function makeCard(dir: string, pairs: number, bytes: number): void {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < pairs; i++) {
    const t = new Date(Date.UTC(2026, 10, 23) + i * 61_000).toISOString();
    const stamp = `${t.slice(0, 10).replaceAll('-', '')}_${t.slice(11, 19).replaceAll(':', '')}`;
    for (const lens of ['00', '10'])
      writeFileSync(join(dir, `VID_${stamp}_${lens}_${String(i % 1000).padStart(3, '0')}.insv`), randomBytes(bytes));
  }
}

/** What a run needs of the app: a call by channel, the latest totals, and close. */
interface App {
  call(channel: Channel, args?: unknown): Promise<Envelope<unknown>>;
  totals(): QueueTotals | undefined;
  close(): Promise<void>;
}

/** Opens the app's service as the app does (`process`), or AppCore on this thread as before (`thread`). */
async function openApp(mode: 'process' | 'thread', dataDir: string, info: LocalServiceInfo): Promise<App> {
  let totals: QueueTotals | undefined;
  const map = new Map<string, unknown>();
  const common = {
    dataDir,
    store: {
      get: (k: string) => map.get(k),
      set: (k: string, v: unknown) => void map.set(k, v),
      snapshot: () => Object.fromEntries(map),
    },
    secrets: { available: () => true, encrypt: (s: string) => s, decrypt: (s: string) => s },
    // The window's share: events are handed over (structured clone to the host in process mode), not rendered.
    emit: () => {},
    pickFiles: async () => [],
    busy: (working: boolean) => working,
    totals: (t: QueueTotals) => void (totals = t),
  };
  if (mode === 'process') {
    const host = new ServiceHost({ ...common, localService: { info } });
    await host.start();
    return { call: (c, a) => host.call(c, a), totals: () => totals, close: () => host.close() };
  }
  const core = new AppCore({ ...common, startLocalService: async () => ({ info, close: async () => {} }) });
  await core.start();
  const handlers = core.handlers() as Record<string, (a: unknown) => Promise<unknown>>;
  return {
    call: async (c, a) => {
      try {
        return { ok: true, value: await handlers[c]!(a) };
      } catch (err) {
        return { ok: false, error: String(err) };
      }
    },
    totals: () => totals,
    close: () => core.close(),
  };
}

async function value<T>(p: Promise<Envelope<unknown>>): Promise<T> {
  const a = await p;
  if (!a.ok) throw new Error(a.error);
  return a.value as T;
}

const ms = (ns: number) => ns / 1e6;
const until = async (cond: () => boolean, what: string, timeoutMs = 30 * 60_000) => {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** One run: the card registered and drained, pause all and resume all in the middle. */
async function run(mode: 'process' | 'thread', work: string, card: string, files: number, info: LocalServiceInfo) {
  const app = await openApp(mode, join(work, `app-${mode}`), info);
  try {
    await value<SettingsView>(app.call('capture:settings.useLocalService'));
    const view = await value<SettingsView>(app.call('capture:settings.get'));
    const eld: IntervalHistogram = monitorEventLoopDelay({ resolution: 1 });
    eld.enable();
    const t0 = performance.now();
    const inspected = await value<InspectResult>(app.call('capture:files.inspect', [card]));
    const forms: CaptureForm[] = inspected.captures.map((c) => ({
      paths: c.files.map((f) => f.path),
      structure: view.structures[0]!.id,
      type: 'interior',
      capturedAt: c.capturedAt,
    }));
    await value(app.call('capture:captures.register', forms));
    const queuedMs = performance.now() - t0;
    // Pause all and resume all while the drain runs at full speed.
    await until(() => (app.totals()?.completed ?? 0) >= files / 10, 'a tenth of the files');
    let t = performance.now();
    await value(app.call('capture:queue.pause', { all: true }));
    const pauseMs = performance.now() - t;
    await new Promise((r) => setTimeout(r, 1000));
    t = performance.now();
    await value(app.call('capture:queue.resume', { all: true }));
    const resumeMs = performance.now() - t;
    await until(() => app.totals()?.completed === files, 'every file completed');
    const drainS = (performance.now() - t0) / 1000;
    eld.disable();
    return {
      p50: ms(eld.percentile(50)),
      p99: ms(eld.percentile(99)),
      max: ms(eld.max),
      pauseMs,
      resumeMs,
      queuedMs,
      filesPerS: files / drainS,
    };
  } finally {
    await app.close();
  }
}

/**
 * Drains `files` small files (dual-lens pairs of `bytes` each) through the app's service in its
 * own process, then through AppCore on this thread, each from a fresh queue; returns this thread's
 * event-loop delay (p50, p99, max in ms, sampled every 1 ms, which the figures include), pause
 * all's and resume all's time (ms, the call's round trip) and the drain's rate, with the targets.
 */
export async function mainThreadFigures(
  work: string,
  files = 10_000,
  bytes = 4096,
  modes: ('process' | 'thread')[] = ['process', 'thread'],
): Promise<Figure[]> {
  const card = join(work, 'card');
  makeCard(card, files / 2, bytes);
  const svc = await serviceProcess(join(work, 'service'));
  const figures: Figure[] = [];
  try {
    for (const mode of modes) {
      const r = await run(mode, work, card, files, svc.info);
      const where = mode === 'process' ? 'service in its process' : 'AppCore on this thread (before)';
      const n = files.toLocaleString('en');
      const target = mode === 'process' ? P99_TARGET_MS : undefined;
      figures.push(
        { name: `${where}: main-thread delay p50`, values: [r.p50], unit: 'ms', better: 'lower', digits: 1 },
        {
          name: `${where}: main-thread delay p99`,
          values: [r.p99],
          unit: 'ms',
          better: 'lower',
          limit: target,
          digits: 1,
          note: `${n} files queued and drained, pause all / resume all`,
        },
        { name: `${where}: main-thread delay max`, values: [r.max], unit: 'ms', better: 'lower', digits: 1 },
        {
          name: `${where}: pause all (${n} files)`,
          values: [r.pauseMs],
          unit: 'ms',
          better: 'lower',
          digits: 0,
          note: 'round trip of the call',
        },
        { name: `${where}: resume all`, values: [r.resumeMs], unit: 'ms', better: 'lower', digits: 0 },
        { name: `${where}: inspect + queue ${n} files`, values: [r.queuedMs], unit: 'ms', better: 'lower', digits: 0 },
        {
          name: `${where}: drain rate`,
          values: [r.filesPerS],
          unit: 'files/s',
          better: 'higher',
          digits: 0,
          note: `${bytes / 1024} KiB files, from the drop to the last`,
        },
      );
    }
  } finally {
    await svc.stop();
  }
  return figures;
}
