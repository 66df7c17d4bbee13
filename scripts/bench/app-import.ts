// The window during a card import: a 100-recording card imported with verification while four
// uploads drain, in the built renderer in Debian's Chromium over the app core (e2e/app/harness.ts),
// the local service in a process of its own. What it prints, with the targets:
//
// - the gaps between animation frames from Import to the end of the import (the card safe to
//   remove on screen and every thumbnail in): their count, the longest, the p99, how many over 200 ms;
// - the time from the offload's record saying "copied and verified" (its row in the queue,
//   `offloads.state = 'finished'` and `verified`, read every 20 ms from this process) to "Card safe to
//   remove" painted in the window;
// - click latency: a row's checkbox clicked about once a second through the import, from the
//   event's own time stamp to the first frame after its handlers ran;
// - the renderer's main thread over the import by Chromium's own counters (CDP `Performance`):
//   script, style, layout and the whole of its tasks, in seconds;
// - with `--trace DIR`: a Chromium performance trace (CDP `Tracing`) and a CPU profile of the page
//   (CDP `Profiler`) written to DIR, and a summary of them: the renderer main thread's long tasks
//   and what filled them, and the page's script by self time.
//
// The page bridge is Playwright's (one CDP evaluate per event), dearer than Electron's MessagePort:
// the figures are an upper bound of the app's.
import type { Browser, CDPSession, Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { AppHarness } from '../../e2e/app/harness.js';
import type { TestService } from '../../e2e/service/testing.js';
import { writeFakeCard } from '../../main/card/fake-card.js';
import { newestOffloadVerified, offloadedRecordingCopies } from '../../main/testing/queue-backdoors.js';
import { ROOT } from '../measure.js';
import { serviceProcess } from './service-process.js';

/** Recordings on the card, each two lenses (copies of sample.insv) with an LRV preview. */
const RECORDINGS = 100;
/** The drain: four files of this many bytes uploading at DRAIN_BPS for the whole import. */
const DRAIN_FILE_BYTES = 128 * 1024 * 1024;
const DRAIN_BPS = 8 * 1024 * 1024;
/** How long the import may take to be safe to remove and show every thumbnail before the figures are taken as they are. */
const DEADLINE_MS = 600_000;
/** How long the window is watched after the card is put back (ms): as long as its list of queued rows was watched when it froze. */
const PUT_BACK_MS = 30_000;
const FIXTURES = process.env.FIXTURES ?? join(ROOT, '../shared/fixtures');

/** What the page's probe recorded (PROBE below). */
interface Probe {
  frames: number[];
  clicks: { at: number; latency: number; target: string }[];
  safeAt: number | null;
  /** Epoch ms the import view saying "safe to remove" reached the page's listeners. */
  safeArrived: number | null;
  /** Events that reached the page, by name. */
  events: Record<string, number>;
}

// The probe, installed before Import (a string: tsx names functions with a helper the page does not have):
// every event that reached the page (the harness's bridge, __captureEmit) by name, and when the
// import view saying "safe to remove" did; every animation frame's time; each click's latency, from its time stamp to the first frame after
// its handlers (the task after that frame's rendering); the epoch ms of the first frame after "Card safe to remove" is in the page.
const PROBE = `(() => {
  const b = (window.__bench = { frames: [], clicks: [], safeAt: null, safeArrived: null, events: {} });
  const emit = window.__captureEmit;
  window.__captureEmit = (e, p) => {
    b.events[e] = (b.events[e] ?? 0) + 1;
    if (b.safeArrived === null && e === 'capture:event.import' && p.safeToRemove) b.safeArrived = Date.now();
    return emit(e, p);
  };
  requestAnimationFrame(function tick(t) {
    b.frames.push(t);
    if (b.safeAt === null && document.querySelector('[data-testid="card-safe"]')) b.safeAt = performance.timeOrigin + t;
    requestAnimationFrame(tick);
  });
  window.addEventListener('click', (e) => {
    const stamp = e.timeStamp;
    const target = e.target instanceof Element ? (e.target.closest('[data-testid]')?.getAttribute('data-testid') ?? e.target.tagName) : '?';
    // After the next frame's rendering steps (rAF, then a task queued from it runs once that frame is done).
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => b.clicks.push({ at: performance.timeOrigin + stamp, latency: performance.now() - stamp, target });
      ch.port2.postMessage(0);
    });
  }, true);
})()`;

/** The value at fraction `q` (0–1) of `xs` (nearest rank); NaN for none. */
const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]! : NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '—');

/**
 * CPU seconds (user + system) so far of this process and every process under it, by what each is
 * (Linux's /proc; empty elsewhere): the harness (this process: the host and Playwright), the
 * upload service, the local service, Chromium's renderers and the rest of Chromium. On a machine
 * others load, these say what the app itself costs where the frame gaps say what it got.
 */
function cpuByProcess(): Map<string, number> {
  const out = new Map<string, number>();
  if (process.platform !== 'linux') return out;
  const tick = 100; // USER_HZ: 100 on every Linux this runs on
  const procs = new Map<number, { ppid: number; cpu: number; cmd: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      procs.set(Number(name), { ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / tick, cmd });
    } catch {
      // Gone while listed.
    }
  }
  const under = (pid: number): boolean => {
    for (let p = pid, n = 0; p > 1 && n < 64; p = procs.get(p)?.ppid ?? 0, n++) if (p === process.pid) return true;
    return false;
  };
  for (const [pid, p] of procs) {
    if (!under(pid)) continue;
    const what =
      pid === process.pid
        ? 'harness (host + Playwright)'
        : p.cmd.includes('service/worker')
          ? 'upload service'
          : p.cmd.includes('e2e/service/cli')
            ? 'local service'
            : p.cmd.includes('--type=renderer')
              ? 'Chromium renderer'
              : /chrom/i.test(p.cmd)
                ? 'Chromium (browser, GPU, network)'
                : 'other';
    out.set(what, (out.get(what) ?? 0) + p.cpu);
    // The renderer's main thread, where the page's script, style, layout and paint run: its own task's figure.
    if (what === 'Chromium renderer')
      try {
        const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const main = 'Chromium renderer: its main thread';
        out.set(main, (out.get(main) ?? 0) + (Number(f[11]) + Number(f[12])) / tick);
      } catch {
        // Gone while read.
      }
  }
  return out;
}

/** Chromium's counters of the page's main thread (CDP Performance.getMetrics), in seconds. */
async function metrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics: m } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(m.map((x) => [x.name, x.value]));
}

/** Reads a CDP stream (IO domain) whole, as text. */
async function readStream(cdp: CDPSession, handle: string): Promise<string> {
  let out = '';
  for (;;) {
    const chunk = await cdp.send('IO.read', { handle, size: 1 << 20 });
    out += chunk.base64Encoded ? Buffer.from(chunk.data, 'base64').toString() : chunk.data;
    if (chunk.eof) break;
  }
  await cdp.send('IO.close', { handle });
  return out;
}

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { functionName?: string; url?: string; type?: string } };
}

/**
 * Where the renderer's main thread went in a trace: its top-level tasks over 50 ms, and, inside
 * them, the self time of each kind of work (script, style, layout, paint, GC…), the largest first.
 */
function summarizeTrace(events: TraceEvent[]): string[] {
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  if (!main) return ['  (no renderer main thread in the trace)'];
  const mine = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const tasks = mine.filter((e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask');
  const long = tasks.filter((t) => t.dur! > 50_000);
  // Self time by event name inside the long tasks: each event's duration less its children's.
  const self = new Map<string, number>();
  const stack: TraceEvent[] = [];
  const charge = (e: TraceEvent, us: number) => {
    const key =
      e.name === 'FunctionCall' && e.args?.data?.functionName
        ? `FunctionCall ${e.args.data.functionName}`
        : e.name === 'EventDispatch' && e.args?.data?.type
          ? `EventDispatch ${e.args.data.type}`
          : e.name;
    self.set(key, (self.get(key) ?? 0) + us);
  };
  const inLong = (e: TraceEvent) => long.some((t) => e.ts >= t.ts && e.ts < t.ts + t.dur!);
  const childTime = new Map<TraceEvent, number>();
  for (const e of mine.filter(inLong)) {
    while (stack.length && stack.at(-1)!.ts + stack.at(-1)!.dur! <= e.ts) stack.pop();
    const parent = stack.at(-1);
    if (parent) childTime.set(parent, (childTime.get(parent) ?? 0) + e.dur!);
    stack.push(e);
  }
  for (const e of mine.filter(inLong)) charge(e, Math.max(0, e.dur! - (childTime.get(e) ?? 0)));
  const total = tasks.reduce((n, t) => n + t.dur!, 0);
  const lines = [
    `  renderer main thread: ${tasks.length} tasks, ${(total / 1e6).toFixed(1)} s; ${long.length} over 50 ms (${(long.reduce((n, t) => n + t.dur!, 0) / 1e6).toFixed(1)} s), the longest ${f1(Math.max(0, ...long.map((t) => t.dur! / 1000)))} ms`,
    '  inside the tasks over 50 ms, self time by kind of work:',
  ];
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 14))
    lines.push(`    ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  return lines;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
/** The page's script by self time (a CDP Profiler profile): the top functions, with their file. */
function summarizeProfile(p: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }): string[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const file = url.replace(/^.*\//, '');
    const key = `${functionName || '(anonymous)'}${file ? `  ${file}:${lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + (p.timeDeltas[i] ?? 0));
  });
  return [
    '  page script by self time (CPU profile):',
    ...[...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 16)
      .map(([k, us]) => `    ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`),
  ];
}

/**
 * Writes the card at `root` (staged beside it, then moved into place at once, as a volume appears):
 * RECORDINGS recordings of two lenses, each lens the fixture sample.insv (a real Insta360 One R
 * recording) with 16 bytes of its own after it (each file its own content, as on a camera's card:
 * the queue knows a file by it), each with its LRV preview (the fixture: a One R preview is that
 * size) and THM.
 */
function writeCard(staging: string, root: string): void {
  const sample = readFileSync(join(FIXTURES, 'sample.insv'));
  const own = (i: number, lens: string) =>
    Buffer.concat([sample, Buffer.from(`${lens}:${String(i).padStart(13, '0')}`)]);
  writeFakeCard(staging, { recordings: RECORDINGS, media: { lens: own, preview: sample }, previewExt: 'lrv' });
  renameSync(staging, root);
}

/** What the probe and the clicks saw between `t0` and `t1` (epoch ms). */
interface Watched {
  gaps: number[];
  /** When each gap ended, ms after the watch began (the same order as `gaps`). */
  endedAt: number[];
  latencies: number[];
  clicksSent: number;
}

/**
 * Clicks about once a second until `stop()`: the first capture row's checkbox, else the first
 * row that cannot be registered, else the queue's heading (a click anywhere is answered by a
 * frame). Answers how many were sent.
 */
function clickAlong(page: Page): { stop(): Promise<number> } {
  let sent = 0;
  let done = false;
  const loop = (async () => {
    while (!done) {
      const at = await page.evaluate(() => {
        const el =
          document.querySelector('[data-testid="capture-row"] input[type="checkbox"]') ??
          document.querySelector('[data-testid="blocked-row"] td.recording') ??
          document.querySelector('#queue-title');
        const r = el?.getBoundingClientRect();
        return r && r.width > 0 && r.top >= 0 && r.bottom <= innerHeight
          ? { x: r.x + r.width / 2, y: r.y + r.height / 2 }
          : null;
      });
      await sleep(250);
      if (done) break;
      if (at) {
        await page.mouse.click(at.x, at.y);
        sent++;
      }
      await sleep(750);
    }
  })();
  return {
    async stop() {
      done = true;
      await loop;
      return sent;
    },
  };
}

/** The frame gaps and click latencies the probe saw between `t0` and `t1` (epoch ms). */
function watched(probe: Probe, timeOrigin: number, t0: number, t1: number, clicksSent: number): Watched {
  const frames = probe.frames.filter((t) => timeOrigin + t >= t0 && timeOrigin + t <= t1);
  return {
    gaps: frames.slice(1).map((t, i) => t - frames[i]!),
    endedAt: frames.slice(1).map((t) => timeOrigin + t - t0),
    latencies: probe.clicks.filter((c) => c.at >= t0 && c.at <= t1).map((c) => c.latency),
    clicksSent,
  };
}

/** Prints the frame gaps and click latencies of `w` with their targets. */
function printWatched(w: Watched): void {
  const { gaps, latencies: lat } = w;
  console.log(
    `  frame gaps: ${gaps.length} frames, longest ${f1(Math.max(0, ...gaps))} ms (target ≤ 200 ms), p99 ${f1(pct(gaps, 0.99))} ms (target ≤ 50 ms), ${gaps.filter((g) => g > 200).length} over 200 ms, ${gaps.filter((g) => g > 1000).length} over 1 s`,
  );
  // Where to look in a trace: the longest few, each with the time its frame came (after the watch began).
  const longest = gaps
    .map((g, i) => [g, w.endedAt[i]!] as const)
    .sort((a, b) => b[0] - a[0])
    .slice(0, 6);
  console.log(
    `  the longest gaps: ${longest.map(([g, at]) => `${f1(g)} ms (frame at +${(at / 1000).toFixed(2)} s)`).join(', ')}`,
  );
  console.log(
    `  clicks: ${lat.length} answered of ${w.clicksSent} sent, p50 ${f1(pct(lat, 0.5))} ms, p95 ${f1(pct(lat, 0.95))} ms, longest ${f1(Math.max(0, ...lat))} ms (target ≤ 100 ms)`,
  );
}

/** Prints each process's CPU seconds between two cpuByProcess readings. */
function printCpu(what: string, cpu0: Map<string, number>, cpu1: Map<string, number>): void {
  if (!cpu1.size) return;
  console.log(
    `  CPU over ${what} (s): ${[...cpu1]
      .map(([k, v]) => [k, v - (cpu0.get(k) ?? 0)] as const)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(', ')}`,
  );
}

/** The load average now, as printed beside each figure. */
const load = () => {
  const [l1, l5] = loadavg();
  return `load average ${l1!.toFixed(2)} / ${l5!.toFixed(2)}; 2 cores shared`;
};

/** Clicks the button named `name` at its centre (no waiting on the page beyond finding it); answers the epoch ms just before. */
async function clickNamed(page: Page, name: string): Promise<number> {
  const button = page.getByRole('button', { name });
  await button.waitFor({ timeout: 30_000 });
  const box = (await button.boundingBox())!;
  const t = Date.now();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  return t;
}

/**
 * Runs the import scenario in `browser` on `origin` (the built renderer served there), with its
 * work in `work`; `traceDir` asks for the trace and profile of the import. Two phases: the card
 * imported while four uploads drain, until "Card safe to remove" is on screen and every thumbnail
 * in; then, its recordings queued, the card put back under another mount name and imported
 * again, PUT_BACK_MS watched while its rows say they are queued already. Prints the figures.
 */
export async function benchImport(browser: Browser, origin: string, work: string, traceDir?: string): Promise<void> {
  const svc = await serviceProcess(join(work, 'service'));
  const mounts = join(work, 'media');
  mkdirSync(mounts, { recursive: true });
  let h: AppHarness | undefined;
  const page: Page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
  try {
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: DRAIN_BPS });
    h = await AppHarness.start(page, origin, {
      service: svc as unknown as TestService,
      cards: { roots: [mounts], pollMs: 300 },
    });
    const local = await h.invoke('capture:settings.useLocalService');
    const structure = local.structures[0]!.id;
    await page.goto(origin);
    await page.getByRole('heading', { name: 'Queue' }).waitFor();

    // The drain: four uploads that last through the import.
    const paths = [0, 1, 2, 3].map((i) => join(work, `walk-${i}.mp4`));
    for (const p of paths) writeFileSync(p, randomBytes(DRAIN_FILE_BYTES));
    await h.invoke(
      'capture:captures.register',
      paths.map((p) => ({ paths: [p], structure, type: 'interior' as const, capturedAt: '2026-11-22T10:00:00Z' })),
    );
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="file-row"][data-state="uploading"]').length >= 4,
      undefined,
      { timeout: 60_000 },
    );

    writeCard(join(work, 'staging'), join(mounts, 'X4_CARD'));
    await page.getByRole('button', { name: 'Import X4_CARD' }).waitFor({ timeout: 30_000 });

    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    if (traceDir) {
      mkdirSync(traceDir, { recursive: true });
      await cdp.send('Tracing.start', {
        transferMode: 'ReturnAsStream',
        traceConfig: {
          includedCategories: [
            'toplevel',
            'devtools.timeline',
            'disabled-by-default-devtools.timeline',
            'v8.execute',
            'blink.user_timing',
            'loading',
          ],
        },
      });
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
      await cdp.send('Profiler.start');
    }
    await page.evaluate(PROBE);
    // When the harness (this process, as Electron's main process would) passed the "safe to remove" view to the page.
    let safeSent: number | null = null;
    const evaluate = page.evaluate.bind(page) as (f: unknown, a?: unknown) => Promise<unknown>;
    (page as unknown as { evaluate: typeof evaluate }).evaluate = (f, a) => {
      const [event, payload] = Array.isArray(a) ? (a as [unknown, { safeToRemove?: boolean }]) : [];
      if (safeSent === null && event === 'capture:event.import' && payload?.safeToRemove) safeSent = Date.now();
      return evaluate(f, a);
    };
    const before = await metrics(cdp);
    const cpu0 = cpuByProcess();
    const t0 = await clickNamed(page, 'Import X4_CARD');

    // The offload's record, read as it is committed.
    const queue = h.queue();
    const seen: { recordedAt: number | null } = { recordedAt: null };
    const poll = setInterval(() => {
      if (seen.recordedAt !== null) return;
      if (newestOffloadVerified(queue)) seen.recordedAt = Date.now();
    }, 20);
    const clicks = clickAlong(page);

    // The end of the import as a person sees it: safe to remove, and no thumbnail still loading.
    let endedBy = 'card safe to remove on screen, every thumbnail in';
    try {
      await page.waitForFunction(
        () =>
          document.querySelector('[data-testid="card-safe"]') !== null &&
          document.querySelectorAll('[data-testid="capture-row"]').length > 0 &&
          document.querySelector('[data-testid="thumbnail"][data-state="loading"]') === null,
        undefined,
        { timeout: DEADLINE_MS, polling: 500 },
      );
    } catch {
      endedBy = `the ${DEADLINE_MS / 1000} s deadline (not safe to remove on screen with every thumbnail by then)`;
    }
    const t1 = Date.now();
    const sent = (await clicks.stop()) + 1; // and Import's
    clearInterval(poll);
    const after = await metrics(cdp);
    const cpu1 = cpuByProcess();
    const probe = (await page.evaluate('window.__bench')) as Probe;
    const thumbs = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid="thumbnail"]')].map((e) => e.getAttribute('data-state')),
    );
    const timeOrigin = await page.evaluate(() => performance.timeOrigin);
    const wall = (t1 - t0) / 1000;
    const d = (k: string) => (after[k] ?? 0) - (before[k] ?? 0);
    console.log(`\nimport of a ${RECORDINGS}-recording card while 4 uploads drain (${load()})`);
    console.log(`  ended by ${endedBy}, ${wall.toFixed(1)} s after Import`);
    // The record is committed before the view saying so is sent (main/offload/card-import.ts): a
    // poll that saw it later than the bridge passed the view on was late, and the bridge's time is the record's.
    const recordedAt =
      seen.recordedAt !== null && safeSent !== null ? Math.min(seen.recordedAt, safeSent) : seen.recordedAt;
    const after0 = (t: number | null) =>
      t === null ? 'not by then' : `${((t - t0) / 1000).toFixed(1)} s after Import`;
    console.log(
      `  offload recorded "copied and verified": ${after0(recordedAt)}; "Card safe to remove" on screen: ${after0(probe.safeAt)}`,
    );
    const step = (a: number | null, b: number | null) => (a !== null && b !== null ? `${(b - a).toFixed(0)} ms` : '—');
    console.log(
      `  from the record to the screen: ${step(recordedAt, probe.safeAt)} (target ≤ 1000 ms): record to the bridge ${step(recordedAt, safeSent)}, bridge to the page ${step(safeSent, probe.safeArrived)}, page to the frame ${step(probe.safeArrived, probe.safeAt)}`,
    );
    console.log(
      `  events that reached the page: ${Object.entries(probe.events)
        .map(([e, n]) => `${e.replace('capture:event.', '')} ${n}`)
        .join(', ')}`,
    );
    printWatched(watched(probe, timeOrigin, t0, t1, sent));
    console.log(
      `  thumbnails at the end: ${thumbs.filter((s) => s === 'image').length} images, ${thumbs.filter((s) => s === 'none').length} icons, ${thumbs.filter((s) => s === 'loading').length} loading`,
    );
    console.log(
      `  renderer main thread over ${wall.toFixed(1)} s (Chromium's counters): tasks ${d('TaskDuration').toFixed(1)} s, script ${d('ScriptDuration').toFixed(1)} s, style ${d('RecalcStyleDuration').toFixed(1)} s, layout ${d('LayoutDuration').toFixed(1)} s`,
    );
    printCpu('the import', cpu0, cpu1);
    if (traceDir) {
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(join(traceDir, 'import-page.cpuprofile'), JSON.stringify(profile));
      const complete = new Promise<string>((resolve) => cdp.once('Tracing.tracingComplete', (e) => resolve(e.stream!)));
      await cdp.send('Tracing.end');
      const text = await readStream(cdp, await complete);
      writeFileSync(join(traceDir, 'import-trace.json'), text);
      const parsed = JSON.parse(text) as TraceEvent[] | { traceEvents: TraceEvent[] };
      const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
      console.log(`  trace and profile in ${traceDir} (import-trace.json: open in Chromium's Performance panel)`);
      for (const l of summarizeTrace(events)) console.log(l);
      for (const l of summarizeProfile(profile as never)) console.log(l);
    }

    // The card put back: its recordings queued (as their verified copies), the window read again,
    // the import dismissed, the card pulled and mounted under another name, imported again.
    const recordings = offloadedRecordingCopies(queue);
    const pairs = new Map<string, string[]>();
    for (const c of recordings) {
      const key = c.replace(/_(00|10)_(\d{3})\.insv$/, '_$2');
      pairs.set(key, [...(pairs.get(key) ?? []), c]);
    }
    const registered = await h.invoke(
      'capture:captures.register',
      [...pairs.values()].map((p) => ({
        paths: p,
        structure,
        type: 'interior' as const,
        capturedAt: '2026-11-24T08:00:00Z',
      })),
    );
    if (registered.refused.length)
      console.log(`  (${registered.refused.length} refused at registration: ${registered.refused[0]!.reason})`);
    const { imports } = await h.invoke('capture:cards.list');
    for (const i of imports) await h.invoke('capture:cards.dismiss', { id: i.id });
    renameSync(join(mounts, 'X4_CARD'), join(work, 'pulled'));
    await page.reload();
    await page.getByRole('heading', { name: 'Queue' }).waitFor();
    await page.waitForFunction(() => !document.querySelector('[data-testid="card-offer"]'), undefined, {
      timeout: 30_000,
    });
    renameSync(join(work, 'pulled'), join(mounts, 'X4_CARD_B'));
    await page.getByRole('button', { name: 'Import X4_CARD_B' }).waitFor({ timeout: 30_000 });
    await page.evaluate(PROBE);
    const cpu2 = cpuByProcess();
    const t2 = await clickNamed(page, 'Import X4_CARD_B');
    const clicks2 = clickAlong(page);
    await sleep(PUT_BACK_MS);
    const t3 = Date.now();
    const sent2 = (await clicks2.stop()) + 1;
    const cpu3 = cpuByProcess();
    const probe2 = (await page.evaluate('window.__bench')) as Probe;
    const blocked = await page.evaluate(() => document.querySelectorAll('[data-testid="blocked-row"]').length);
    const timeOrigin2 = await page.evaluate(() => performance.timeOrigin);
    console.log(
      `\nthe card put back, its ${pairs.size} recordings queued: ${PUT_BACK_MS / 1000} s from Import (${load()})`,
    );
    console.log(
      `  "Cannot be registered" rows shown: ${blocked}; "Card safe to remove" on screen: ${probe2.safeAt === null ? 'not by then' : `${((probe2.safeAt - t2) / 1000).toFixed(1)} s after Import`}`,
    );
    printWatched(watched(probe2, timeOrigin2, t2, t3, sent2));
    printCpu('those seconds', cpu2, cpu3);
  } finally {
    await h?.host.close();
    await svc.stop();
    await page.close();
  }
}
