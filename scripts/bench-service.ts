// npm run bench:service [-- CAPTURES]: what one request costs the local service when it already
// holds a few captures and when it holds many (default 10,000),.
//
// Prints, from each size on, the median and 95th-percentile wall time and the CPU time of 200
// add-capture requests (one two-file capture each, every one saved to the service's state) and of
// 200 status reads, their ratio between the sizes, and the state database's size. Figures, not assertions; the
// target is a ratio near 1 (the cost does not grow with the state).
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import type { TestService } from '../e2e/service/testing.js';
import { registerCapture, startTestService } from '../e2e/service/testing.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const MANY = Number(process.argv[2] ?? 10_000);
const SAMPLES = 200;
const files = [
  { name: 'VID_20261123_080000_00_001.insv', size: 64 * 1024 * 1024 },
  { name: 'VID_20261123_080000_10_001.insv', size: 64 * 1024 * 1024 },
];

interface Sample {
  /** Median and 95th percentile of the wall time, ms. */
  p50: number;
  p95: number;
  /** CPU time (user + system) of this process per run, ms: service and client together. */
  cpu: number;
}

/** Runs `f` `n` times, then waits 1.1 s (state saved in the background would land there too). */
async function sample(n: number, f: () => Promise<unknown>): Promise<Sample> {
  const ms: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    ms.push(performance.now() - t);
  }
  await new Promise((r) => setTimeout(r, 1100));
  const cpu = process.cpuUsage(cpu0);
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(n / 2)]!, p95: ms[Math.floor(n * 0.95)]!, cpu: (cpu.user + cpu.system) / 1000 / n };
}

/** Registers captures 100 to a request until the service holds `total`. */
async function fill(svc: TestService, total: number): Promise<void> {
  const token = await svc.token();
  for (let held = Object.keys(svc.store.state.captures).length; held < total; held += 100) {
    const captures = Array.from({ length: Math.min(100, total - held) }, () => ({
      project: svc.info.projectId,
      structure: svc.info.structures[0],
      captureDateTime: '2026-11-23T08:00:00Z',
      type: 'interior',
      mode: '360 Video',
      sourceType: 'bot',
      files: files.map((f, i) => ({ frameIndex: i + 1, fileName: f.name, contentType: 'video/insv', size: f.size })),
    }));
    const res = await svc.gateway('POST', '/captures/api/v1/external-captures/add-capture', {
      token,
      body: { captures },
    });
    if (res.status !== 200) throw new Error(`add-capture answered ${res.status}`);
  }
}

async function measure(svc: TestService) {
  const held = Object.keys(svc.store.state.captures).length;
  let last = '';
  const add = await sample(SAMPLES, async () => {
    last = (await registerCapture(svc, files)).captureId;
  });
  const token = await svc.token();
  const status = await sample(SAMPLES, () =>
    svc.gateway('GET', `/captures/api/v1/external-captures/${last}/upload-status`, { token }).then((r) => r.text()),
  );
  return { add, status, held };
}

const svc = await startTestService();
try {
  // Warm-up (JIT, the SDK's first requests), untimed, so the small size is not measured cold.
  for (let i = 0; i < 50; i++) await registerCapture(svc, files);
  const few = await measure(svc);
  const t = performance.now();
  await fill(svc, MANY);
  const filled = (performance.now() - t) / 1000;
  const many = await measure(svc);
  const db = statSync(join(svc.dataDir, 'service-state.db')).size;
  const fmt = (x: Sample) =>
    `median ${x.p50.toFixed(2)} ms, p95 ${x.p95.toFixed(2)} ms, CPU ${x.cpu.toFixed(2)} ms a request`;
  console.log(`add-capture from ${few.held} captures:  ${fmt(few.add)}`);
  console.log(
    `add-capture from ${many.held} captures: ${fmt(many.add)}  (ratios: median ${(many.add.p50 / few.add.p50).toFixed(2)}, CPU ${(many.add.cpu / few.add.cpu).toFixed(2)}; target ≈ 1)`,
  );
  console.log(`upload-status at ${few.held + SAMPLES} captures:  ${fmt(few.status)}`);
  console.log(
    `upload-status at ${many.held + SAMPLES} captures: ${fmt(many.status)}  (ratios: median ${(many.status.p50 / few.status.p50).toFixed(2)}, CPU ${(many.status.cpu / few.status.cpu).toFixed(2)}; target ≈ 1)`,
  );
  console.log(
    `filling to ${MANY} captures (100 a request): ${filled.toFixed(1)} s; state database ${(db / 1024 / 1024).toFixed(1)} MiB`,
  );
} finally {
  await svc.stop();
}
