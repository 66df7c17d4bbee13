// The Assets view at a real building's size: floors of 2,000 polylines of 8 points (the office's
// usual case) and 2,000 of 100 points (200,000 points in all), loaded into the built renderer in
// Debian's Chromium over the real app core, its own service process and the local service, as the
// e2e tests run it (e2e/app/harness.ts). Prints, as p50 / p95 with their targets, the time from
// the choice of the category to the loading sentence and to the first frame painted with every
// shape, that time's share per stage, and the hover and keyboard-focus feedback. Asserts nothing
// (timings belong here, not in tests). Measured under load, the figures say so: `uptime` is
// printed with them.
//
// From the choice: the category is chosen in the page as a person's click does it (the select's
// value set and its change event sent, at a time taken in the page), and the drawing counts once
// the frame after every shape is in the page has painted. The stages, each from the end of the
// one before:
//   choice      the view's own handling of the choice, to the call leaving (`assets:asked`);
//   to dispatch     the call's way to the IPC dispatch (the harness's binding, Electron's ipcRenderer.invoke);
//   service     the IPC dispatch, the service process, the progress service's answer read and validated
//               there, and the packing (main/office/office-sync.ts), back to the IPC dispatch;
//   transfer    the answer's way from the IPC dispatch into the page (`assets:answer`): the harness's
//               delivery, as the app's, the typed arrays carried as bytes (e2e/app/harness-bytes.ts);
//   unpack      the answer unpacked and checked in the page (`assets:unpacked`);
//   layout      the view's figures, looks and SVG elements made and committed (React, the DOM);
//   paint       from the commit to the frame painted.
// The IPC dispatch's times come from the harness (AppHarness.calls), on this machine's one clock.
//
// Feedback: from the pointer's mouseover (or the arrow key's keydown), by the event's own
// timestamp, to the first frame painted after the focus panel names the shape; printed also to
// the moment the panel changed (the view's work done, the browser's style, layout and paint to come). The listeners are
// in place before the pointer moves (Chromium runs input before other queued tasks, so arming and
// moving at once lost samples), and hovers start once the table's rows are made: the figures are
// the view's steady state.
import type { Browser, Page } from '@playwright/test';
import { chromium } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { preview } from 'vite';
import { AppHarness } from '../e2e/app/harness.js';
import { ROOT } from './measure.js';

/** The floors measured: shapes × points per shape. */
const CASES = process.env.BENCH_ASSETS_CASES
  ? process.env.BENCH_ASSETS_CASES.split(',').map((c) => ({
      shapes: Number(c.split('x')[0]),
      points: Number(c.split('x')[1]),
    }))
  : [
      { shapes: 2000, points: 8 },
      { shapes: 2000, points: 100 },
    ];
const DRAWS = Number(process.env.BENCH_ASSETS_DRAWS ?? 5);
const HOVERS = 40;
const FOCUSES = 40;
/** The first-draw targets: ≤ 500 ms up to 20,000 points (2,000 × 8 is 16,000), ≤ 2 s for 200,000. */
const drawTarget = (points: number) => (points <= 20_000 ? 500 : 2000);
/** The loading sentence's and the feedback's targets (ms). */
const LOADING_TARGET = 100;
const FEEDBACK_TARGET = 50;

interface SeedAsset {
  _id: string;
  structure: string;
  category: string;
  doNotTrack: boolean;
  points: { x: number; y: number }[];
  stages: { _id: string; percentage: number; date: string }[];
}

/** The value at fraction `q` (0–1) of the sorted samples (nearest rank); samples with no feedback (NaN) left out. */
const pct = (xs: number[], q: number) => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
};
const line = (what: string, xs: number[], target?: number) =>
  `  ${what.padEnd(24)} p50 ${pct(xs, 0.5).toFixed(1).padStart(7)} ms   p95 ${pct(xs, 0.95).toFixed(1).padStart(7)} ms   (n=${xs.filter((x) => !Number.isNaN(x)).length}${xs.some((x) => Number.isNaN(x)) ? `, ${xs.filter((x) => Number.isNaN(x)).length} without feedback` : ''}${target === undefined ? '' : `, target ≤ ${target} ms`})`;

/** One draw's times in the page (ms since the choice, `performance.now()` at the choice `t0`, and its wall-clock `wall0`). */
interface Drawn {
  wall0: number;
  loading: number;
  asked: number;
  answer: number;
  unpacked: number;
  committed: number;
  painted: number;
}

// In-page helpers, as strings: tsx names functions with a helper the page does not have.
/**
 * Chooses the category `id` as a click on its option does (value set, change sent) and resolves,
 * once every one of `n` shapes is in the page and the next frame painted, with the times of Drawn.
 */
const CHOOSE_AND_DRAW = `([id, n]) => new Promise((resolve) => {
  const marks = ['assets:asked', 'assets:answer', 'assets:unpacked'];
  for (const m of marks) performance.clearMarks(m);
  const at = (name) => { const e = performance.getEntriesByName(name).at(-1); return e ? e.startTime - t0 : NaN; };
  let loading = NaN;
  const painted = (then) => requestAnimationFrame(() => setTimeout(() => then(performance.now() - t0), 0));
  const ob = new MutationObserver(() => {
    if (Number.isNaN(loading) && document.querySelector('[data-testid="assets-loading"]')) {
      loading = -1;
      painted((t) => { loading = t; });
    }
    const layer = document.querySelector('[data-testid="asset-layer"]');
    if (layer && layer.childElementCount === n && performance.getEntriesByName('assets:unpacked').length) {
      ob.disconnect();
      const committed = performance.now() - t0;
      painted((p) => resolve({ wall0, loading, asked: at('assets:asked'), answer: at('assets:answer'), unpacked: at('assets:unpacked'), committed, painted: p }));
    }
  });
  ob.observe(document.body, { childList: true, subtree: true });
  const select = [...document.querySelectorAll('label')].find((l) => l.textContent.startsWith('Category')).querySelector('select');
  const t0 = performance.now();
  const wall0 = performance.timeOrigin + t0;
  select.value = id;
  select.dispatchEvent(new Event('change', { bubbles: true }));
})`;
/**
 * Sets window.__benchFelt: a promise that resolves, after the next painted frame once the focus
 * panel changes, with ms since the triggering event's timestamp to the change (`commit`: React
 * done, the DOM changed) and to that frame (`painted`). Returns once armed.
 */
const ARM_FEEDBACK = `(type) => void (window.__benchFelt = new Promise((resolve) => {
  let at = 0;
  const seen = (e) => { if (!at) at = e.timeStamp; };
  document.addEventListener(type, seen, { capture: true });
  const panel = document.querySelector('[data-testid="asset-focus"]');
  const late = setTimeout(() => { ob.disconnect(); resolve({ commit: NaN, painted: NaN }); }, 10000);
  const ob = new MutationObserver(() => {
    ob.disconnect();
    clearTimeout(late);
    const commit = performance.now() - at;
    requestAnimationFrame(() => setTimeout(() => {
      document.removeEventListener(type, seen, { capture: true });
      // No event seen (the panel changed for another reason): not a sample.
      resolve(at ? { commit, painted: performance.now() - at } : { commit: NaN, painted: NaN });
    }, 0));
  });
  ob.observe(panel, { childList: true, subtree: true, characterData: true });
}))`;
/** One feedback's ms from the event to the DOM's change and to the frame painted (NaN when none within 10 s). */
interface Felt {
  commit: number;
  painted: number;
}

/** Arms the feedback timer for `type`, does `act`, and gives the feedback's times. */
async function felt(page: Page, type: string, act: () => Promise<void>): Promise<Felt> {
  await page.evaluate(`(${ARM_FEEDBACK})('${type}')`);
  await act();
  return (await page.evaluate('window.__benchFelt')) as Felt;
}

async function measure(page: Page, h: AppHarness, shapes: number, points: number) {
  const structure = h.settings.view().structures[0]!;
  const categories = h.svc.store.state.assetCategories as unknown as { id: string; name: string }[];
  const category = categories.find((c) => c.name === 'Curtain Wall')!;
  const other = categories.find((c) => c.name === 'Ductwork')!;
  const all = h.svc.store.state.assets as unknown as SeedAsset[];
  const template = all.find((a) => a.structure === structure.id && a.category === category.id)!;
  const kept = all.filter(
    (a) => !(a.structure === structure.id && a.category === category.id) && !a._id.startsWith('floor-'),
  );
  // A grid of 50 columns; each shape a zigzag 30 units wide, rows 30 units apart.
  const floor: SeedAsset[] = Array.from({ length: shapes }, (_, i) => ({
    ...template,
    _id: `floor-${i}`,
    doNotTrack: false,
    points: Array.from({ length: points }, (_, k) => ({
      x: (i % 50) * 40 + (k * 30) / (points - 1),
      y: Math.floor(i / 50) * 30 + (k % 2),
    })),
    stages: template.stages.map((s, n) => ({ ...s, percentage: (i * 7 + n * 13) % 101 })),
  }));
  all.splice(0, all.length, ...kept, ...floor);
  await page.getByRole('tab', { name: 'Assets' }).click();
  await page.getByLabel('Structure').selectOption({ label: structure.name });

  const draws: Drawn[] = [];
  const dispatches: { receivedAt: number; answeredAt: number }[] = [];
  for (let r = 0; r < DRAWS; r++) {
    await page.getByLabel('Category').selectOption({ label: other.name });
    await page.getByTestId('asset-table').waitFor({ timeout: 120_000 });
    const d = (await page.evaluate(`(${CHOOSE_AND_DRAW})(${JSON.stringify([category.id, shapes])})`)) as Drawn;
    const dispatch = h.calls.findLast((c) => c.channel === 'capture:assets.list')!;
    draws.push(d);
    dispatches.push(dispatch);
    console.error(
      `  draw ${r + 1}/${DRAWS}: ${d.painted.toFixed(0)} ms from the choice (loading shown after ${d.loading.toFixed(0)} ms)`,
    );
  }
  await page
    .getByTestId('asset-table')
    .locator('tbody tr')
    .nth(shapes - 1)
    .waitFor({ timeout: 120_000 });

  // With BENCH_ASSETS_TRACE=DIR: a Chromium trace of the hovers and arrow keys (CDP Tracing), to be
  // opened in Chromium's Performance panel, written to DIR per floor.
  const traceDir = process.env.BENCH_ASSETS_TRACE;
  const cdp = traceDir ? await page.context().newCDPSession(page) : null;
  if (cdp)
    await cdp.send('Tracing.start', {
      transferMode: 'ReturnAsStream',
      traceConfig: {
        includedCategories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute'],
      },
    });
  // Hover: the mouse to a vertex of a shape spread over the floor, through the drawing's transform.
  const hovers: Felt[] = [];
  for (let r = 0; r < HOVERS; r++) {
    const i = (r * 997) % shapes;
    const at = await page.getByTestId('asset-layer').evaluate(
      (layer: SVGGElement, p) => {
        const m = layer.getScreenCTM()!;
        return { x: m.a * p.x + m.c * p.y + m.e, y: m.b * p.x + m.d * p.y + m.f };
      },
      floor[i]!.points[Math.floor(points / 2)]!,
    );
    hovers.push(await felt(page, 'mouseover', () => page.mouse.move(at.x, at.y)));
    if (Number.isNaN(hovers.at(-1)!.painted))
      console.error(`  hover of shape ${i} at ${at.x.toFixed(0)},${at.y.toFixed(0)}: no feedback`);
    await page.mouse.move(2, 2);
  }

  // Keyboard: the drawing's tab stop, then ArrowRight from shape to shape.
  await page.getByRole('button', { name: 'Next not finished' }).focus();
  await page.keyboard.press('Tab');
  const focuses: Felt[] = [];
  for (let r = 0; r < FOCUSES; r++) {
    focuses.push(await felt(page, 'keydown', () => page.keyboard.press('ArrowRight')));
  }

  if (cdp && traceDir) {
    const complete = new Promise<string>((resolve) => cdp.once('Tracing.tracingComplete', (e) => resolve(e.stream!)));
    await cdp.send('Tracing.end');
    const handle = await complete;
    let text = '';
    for (;;) {
      const chunk = await cdp.send('IO.read', { handle, size: 1 << 20 });
      text += chunk.base64Encoded ? Buffer.from(chunk.data, 'base64').toString() : chunk.data;
      if (chunk.eof) break;
    }
    mkdirSync(traceDir, { recursive: true });
    const file = join(traceDir, `assets-${shapes}x${points}-feedback-trace.json`);
    writeFileSync(file, text);
    console.log(`  trace of the hovers and arrow keys: ${file}`);
    await cdp.detach();
  }

  // Each stage from the end of the one before (see the head of this file); the IPC dispatch's times on the page's scale.
  const stage = (f: (d: Drawn, dispatch: { receivedAt: number; answeredAt: number }) => number) =>
    draws.map((d, i) => f(d, dispatches[i]!));
  const dispatchIn = (d: Drawn, c: { receivedAt: number }) => c.receivedAt - d.wall0;
  const dispatchOut = (d: Drawn, c: { answeredAt: number }) => c.answeredAt - d.wall0;
  const stages: [string, number[]][] = [
    ['choice', stage((d) => d.asked)],
    ['to the dispatch', stage((d, c) => dispatchIn(d, c) - d.asked)],
    ['service', stage((d, c) => dispatchOut(d, c) - dispatchIn(d, c))],
    ['transfer', stage((d, c) => d.answer - dispatchOut(d, c))],
    ['unpack and check', stage((d) => d.unpacked - d.answer)],
    ['layout', stage((d) => d.committed - d.unpacked)],
    ['paint', stage((d) => d.painted - d.committed)],
  ];
  const total = draws.map((d) => d.painted);
  const median = pct(total, 0.5);
  console.log(
    `${shapes.toLocaleString('en')} polylines of ${points} points (${(shapes * points).toLocaleString('en')} points):`,
  );
  console.log(
    line(
      'loading sentence shown',
      stage((d) => d.loading),
      LOADING_TARGET,
    ),
  );
  console.log(line('first draw, from choice', total, drawTarget(shapes * points)));
  for (const [name, xs] of stages)
    console.log(`${line(`  ${name}`, xs)}  ${((100 * pct(xs, 0.5)) / median).toFixed(0).padStart(3)} % of the median`);
  console.log(
    line(
      'hover feedback',
      hovers.map((f) => f.painted),
      FEEDBACK_TARGET,
    ),
  );
  console.log(
    line(
      "  to the view's change",
      hovers.map((f) => f.commit),
    ),
  );
  console.log(
    line(
      'arrow-key focus',
      focuses.map((f) => f.painted),
      FEEDBACK_TARGET,
    ),
  );
  console.log(
    line(
      "  to the view's change",
      focuses.map((f) => f.commit),
    ),
  );
}

const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
const server = await preview({
  configFile: join(ROOT, 'renderer/vite.config.ts'),
  preview: { host: '127.0.0.1', port: 0 },
  logLevel: 'silent',
});
const origin = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}`;
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
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  h = await AppHarness.start(page, origin);
  await page.goto(origin);
  await page.getByRole('button', { name: 'Use the local test service' }).click();
  await page.getByText('Drop Insta360 recordings here').waitFor();
  console.log(
    `Assets view, built renderer in ${browser.version()} (headless, software drawing), window 1280×800, ${DRAWS} draws, ${HOVERS} hovers and ${FOCUSES} arrow keys per floor`,
  );
  console.log(`before: ${uptime()}`);
  for (const c of CASES) await measure(page, h, c.shapes, c.points);
  console.log(`after:  ${uptime()}`);
} finally {
  await h?.stop();
  await browser?.close();
  await server.close();
}
