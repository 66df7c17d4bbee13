// The desktop app at scale, two scenarios (`--only queue,import`; both by default):
// - queue: 10,000 files queued, 4 uploading. Prints the renderer's longest frame and the app core's
//   CPU share while progress flows, with their targets.
// - import: a 100-recording card imported while 4 uploads drain (scripts/bench/app-import.ts):
//   the window's frame gaps, the time from the offload's record to "Card safe to remove" on
//   screen, and click latency; `--trace DIR` writes a Chromium trace and a CPU profile of the page
//   there and prints where the renderer's main thread went.
//
// The renderer is the built one in Debian's Chromium; the app core (what Electron's main process
// runs) is in this process, wired to the page as the e2e tests do; the local service runs in a
// process of its own so its storage work is not counted. The page bridge here is Playwright's
// (one CDP evaluate per event), dearer than Electron's webContents.send: the CPU figure is an
// upper bound of the main process's.
import type { Browser } from '@playwright/test';
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { preview } from 'vite';
import { AppHarness } from '../e2e/app/harness.js';
import type { TestService } from '../e2e/service/testing.js';
import { ROOT } from './measure.js';
import { setFileState } from '../main/testing/queue-backdoors.js';
import { benchImport } from './bench/app-import.js';

const QUEUED = 10_000;
const UPLOADING = 4;
const FILE_BYTES = 64 * 1024 * 1024;
const MEASURE_MS = 10_000;
const PORT = Number(process.env.E2E_PORT ?? 4180);
const argv = process.argv.slice(2);
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const only = new Set((arg('--only') ?? 'queue,import').split(','));
const traceDir = arg('--trace');

/** The local service in a child process, as a TestService for the harness (info, admin, stop). */
async function serviceProcess(dataDir: string): Promise<TestService> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'e2e/service/cli.ts'), '--data-dir', dataDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  const info = JSON.parse(line.replace(/^capture-service ready /, '')) as TestService['info'];
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${info.adminUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { info, admin, stop: async () => void child.kill('SIGTERM') } as unknown as TestService;
}

const work = mkdtempSync(join(tmpdir(), 'bench-app-'));
const server = await preview({
  configFile: join(ROOT, 'renderer/vite.config.ts'),
  preview: { host: '127.0.0.1', port: PORT, strictPort: true },
});
const origin = `http://127.0.0.1:${PORT}`;
let browser: Browser | undefined;
let h: AppHarness | undefined;
try {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  if (only.has('queue')) {
    const svc = await serviceProcess(join(work, 'service'));
    // Storage at 16 MiB/s for all files: four uploads stay in flight through the measurement.
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 16 * 1024 * 1024 });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    h = await AppHarness.start(page, origin, { service: svc });
    const local = await h.invoke('capture:settings.useLocalService');
    const structure = local.structures[0]!.id;

    // 10,000 files already queued (paused, so only the four below move), written as the queue writes them.
    const queue = h.queue();
    queue.transaction(() => {
      for (let i = 0; i < (QUEUED - UPLOADING) / 2; i++) {
        const name = (lens: number) => `VID_20261122_${String(100000 + i).padStart(6, '0')}_${lens}0_001.insv`;
        const id = queue.enqueueCapture(
          `recording ${i}`,
          {
            project: 'p',
            structure,
            captureDateTime: '2026-11-22T10:00:00Z',
            type: 'interior',
            mode: '360 Video',
            sourceType: 'bot',
            files: [0, 1].map((n) => ({
              frameIndex: n + 1,
              fileName: name(n),
              contentType: 'video/insv',
              size: 5_000_000_000,
            })),
          },
          [0, 1].map((n) => ({
            path: `/card/${name(n)}`,
            fileName: name(n),
            contentType: 'video/insv',
            size: 5_000_000_000,
            mtimeMs: 1,
          })),
        );
        queue.setCaptureState(id, 'registered');
        for (const f of queue.filesOf(id)) setFileState(queue, f.id, 'paused');
      }
    })();
    await page.goto(origin);
    await page.getByTestId('queue-summary').waitFor();

    const paths = [0, 1, 2, 3].map((i) => join(work, `walk-${i}.mp4`));
    for (const p of paths) writeFileSync(p, randomBytes(FILE_BYTES));
    await h.invoke(
      'capture:captures.register',
      paths.map((p) => ({ paths: [p], structure, type: 'interior' as const, capturedAt: '2026-11-22T10:00:00Z' })),
    );
    // The four are at the end of 10,000 rows: scrolled there, as an operator would look.
    await page
      .getByTestId('queue-counts')
      .filter({ hasText: `${UPLOADING} uploading` })
      .waitFor({ timeout: 60_000 });
    await page.locator('.queue-list').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="file-row"][data-state="uploading"]').length >= n,
      UPLOADING,
      { timeout: 60_000 },
    );

    // Frames: the longest gap between animation frames, and long animation frames as Chromium reports them.
    // (A string: tsx names functions with a helper the page does not have.)
    await page.evaluate(`(() => {
      const b = (window.__bench = { longest: 0, loaf: 0, frames: 0 });
      let last = performance.now();
      requestAnimationFrame(function tick(t) {
        b.longest = Math.max(b.longest, t - last);
        b.frames++;
        last = t;
        requestAnimationFrame(tick);
      });
      new PerformanceObserver((l) => l.getEntries().forEach((e) => (b.loaf = Math.max(b.loaf, e.duration)))).observe({ type: 'long-animation-frame' });
    })()`);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await page.waitForTimeout(MEASURE_MS);
    const cpu = process.cpuUsage(cpu0);
    const wall = performance.now() - t0;
    const frames = await page.evaluate(
      () => (window as unknown as { __bench: { longest: number; loaf: number; frames: number } }).__bench,
    );
    const uploading = await page.locator('[data-state="uploading"]').count();
    const summary = await page.getByTestId('queue-summary').textContent();
    const share = ((cpu.user + cpu.system) / 1000 / wall) * 100;

    console.log(
      `queue: ${QUEUED.toLocaleString('en')} files, ${uploading} uploading while measured; screen: "${summary}"`,
    );
    console.log(
      `renderer: longest gap between frames ${frames.longest.toFixed(1)} ms (target ≤ 50 ms); longest long-animation-frame ${frames.loaf.toFixed(1)} ms; ${((frames.frames * 1000) / wall).toFixed(0)} frames/s`,
    );
    console.log(
      `main process + service worker CPU: ${share.toFixed(1)} % of a core over ${(wall / 1000).toFixed(1)} s (target < 10 %; includes Playwright's page bridge)`,
    );
  }
  if (only.has('import')) await benchImport(browser, origin, join(work, 'import'), traceDir);
} finally {
  await h?.host.close();
  await h?.svc.stop();
  await browser?.close();
  await server.close();
  rmSync(work, { recursive: true, force: true });
}
