import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestService } from '../e2e/service/testing.js';
import { startTestService } from '../e2e/service/testing.js';
import { recommendedRetryPolicy } from './api/errors.js';
import type { NamedStructure } from '../shared/ipc.js';
import { AppCore } from './app-core.js';

let svc: TestService;
let work: string;
const cores: AppCore[] = [];
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'app-core-'));
});
afterEach(async () => {
  while (cores.length) await cores.pop()!.close();
  await svc.admin('DELETE', '/faults');
});
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A core on its own data folder, over the shared local service, with short delays. */
async function core(name: string) {
  const notices: { level: string; message: string }[] = [];
  const notified: string[] = [];
  const map = new Map<string, unknown>();
  const c = new AppCore({
    dataDir: join(work, name),
    store: { get: (k) => map.get(k), set: (k, v) => map.set(k, v) },
    secrets: { available: () => true, encrypt: (s) => s, decrypt: (s) => s },
    emit: (event, payload) => event === 'capture:event.notice' && notices.push(payload as { level: string; message: string }),
    pickFiles: async () => [],
    startLocalService: async () => ({ ...svc, close: async () => {} }),
    notify: (title, body) => notified.push(`${title}: ${body}`),
    engine: { partRetry: recommendedRetryPolicy(10, 10), stallTimeoutMs: 5000, retrySchedule: { delayMs: () => 300 } },
  });
  cores.push(c);
  await c.start();
  const h = c.handlers();
  await h['capture:settings.useLocalService']();
  return { c, h, notices, notified };
}

describe('AppCore', () => {
  it('inspects dropped files, registers them and reports the capture complete', async () => {
    const { c, h, notified } = await core('happy');
    const file = join(work, 'walk.mp4');
    writeFileSync(file, randomBytes(2 * 1024 * 1024));
    const inspected = await h['capture:files.inspect']([file]);
    expect(inspected.captures.map((p) => [p.label, p.alreadyQueued, p.violation])).toEqual([['walk.mp4', false, undefined]]);
    const structure = c.settings.view().structures[0]!;
    await h['capture:captures.register']([{ paths: [file], structure: structure.id, design: structure.designs[0]!.id, type: 'interior', capturedAt: '2026-11-22T08:00:00Z' }]);
    await vi.waitFor(() => expect(notified).toContain('Capture uploaded: walk.mp4 is complete.'), { timeout: 15_000 });
    const view = c.queueView();
    expect(view.files.map((f) => [f.state, f.bytesSent === f.size])).toEqual([['completed', true]]);
    expect((await h['capture:files.inspect']([file])).captures[0]!.alreadyQueued).toBe(true);
  });

  it('tries a file that failed for a passing reason again by itself, resuming it, and shows when', async () => {
    const { c, h, notices, notified } = await core('auto-retry');
    const file = join(work, 'flaky.mp4');
    writeFileSync(file, randomBytes(6 * 1024 * 1024));
    // Five answers of 500 for part 2: more than a part's four retries, so the attempt ends once.
    await svc.admin('POST', '/faults', { target: 'storage', operation: 'UploadPart', partNumber: 2, times: 5, action: { type: 'status', status: 500 } });
    const structure = c.settings.view().structures[0]!;
    const seen: { state: string; retryAt: number | null; attempts: number }[] = [];
    const poll = setInterval(() => {
      const f = c.queueView().files[0];
      if (f) seen.push({ state: f.state, retryAt: f.retryAt, attempts: f.attempts });
    }, 20);
    try {
      await h['capture:captures.register']([{ paths: [file], structure: structure.id, type: 'exterior', capturedAt: '2026-11-22T08:00:00Z' }]);
      await vi.waitFor(() => expect(notified).toContain('Capture uploaded: flaky.mp4 is complete.'), { timeout: 20_000 });
    } finally {
      clearInterval(poll);
    }
    // Between the attempts the queue showed the file waiting with its retry time and attempt count.
    expect(seen).toContainEqual({ state: 'pending', retryAt: expect.any(Number), attempts: 1 });
    expect(notified.filter((n) => n.startsWith('Upload failed'))).toEqual([]);
    expect(notices.filter((n) => /flaky/.test(n.message))).toEqual([]);
  });

  it('leaves a refused file for a person and says so', async () => {
    const { c, h, notified } = await core('refused');
    const file = join(work, 'growing.mp4');
    writeFileSync(file, randomBytes(6 * 1024 * 1024));
    await svc.admin('POST', '/faults', { target: 'storage', operation: 'UploadPart', action: { type: 'latency', ms: 300 } });
    const structure = c.settings.view().structures[0]!;
    await h['capture:captures.register']([{ paths: [file], structure: structure.id, type: 'interior', capturedAt: '2026-11-22T08:00:00Z' }]);
    appendFileSync(file, 'the camera was still writing');
    await vi.waitFor(() => expect(notified.some((n) => n.startsWith('Upload failed: growing.mp4:') && n.includes('changed while uploading'))).toBe(true), { timeout: 15_000 });
    expect(c.queueView().files[0]!.state).toBe('failed');
  });

  it('remembers where most captures of the last card went, for this project, to offer it next time', async () => {
    const { c, h } = await core('last-placement');
    expect(await h['capture:captures.lastPlacement']()).toBeNull();
    const [a, b] = c.settings.view().structures;
    if (!a || !b) throw new Error('the local service seeds at least two structures');
    const files = ['one', 'two', 'three'].map((n) => {
      const path = join(work, `${n}-placed.mp4`);
      writeFileSync(path, randomBytes(1000));
      return path;
    });
    const form = (path: string, s: NamedStructure) => ({ paths: [path], structure: s.id, design: s.designs[0]!.id, type: 'exterior' as const, capturedAt: '2026-11-22T08:00:00+01:00' });
    await h['capture:captures.register']([form(files[0]!, a), form(files[1]!, b), form(files[2]!, b)]);
    expect(await h['capture:captures.lastPlacement']()).toEqual({ structure: b.id, design: b.designs[0]!.id, type: 'exterior' });
    // Kept per project: another project's next card is offered nothing.
    c.settings.rememberPlacement('another-project', { structure: a.id, type: 'interior' });
    expect(await h['capture:captures.lastPlacement']()).toMatchObject({ structure: b.id });
  });

  it('warns about designs changed since the last export, and records a new export', async () => {
    const { h } = await core('designs');
    const design = svc.store.state.projects[0]!.structures[2]!.designs[0]!;
    await svc.admin('POST', `/projects/${svc.info.projectId}/designs/${design.id}/touch`);
    expect(await h['capture:designs.check']()).toMatchObject({ stale: true, lastExport: null });
    expect((await h['capture:designs.export']()).message).toMatch(/being generated/);
    expect(await h['capture:designs.check']()).toMatchObject({ stale: false, lastExport: { designsUpdatedAt: design.updatedAt } });
  });
});
