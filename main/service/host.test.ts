import { GetObjectCommand } from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestService } from '../../e2e/service/testing.js';
import { startTestService } from '../../e2e/service/testing.js';
import type { EventName, SettingsView } from '../../shared/ipc.js';
import { LATEST_VERSION } from '../queue/db.js';
import { lockQueue } from '../queue/lock.js';
import type { ServiceHostOptions } from './host.js';
import { RESTARTED, ServiceHost } from './host.js';

// The upload service in its worker thread, driven as the Electron shell drives it, under plain
// Node (the worker runs from source through main/service/tsx-boot.mjs).
let svc: TestService;
let work: string;
const hosts: ServiceHost[] = [];
const MiB = 1024 * 1024;
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'service-host-'));
});
afterEach(async () => {
  while (hosts.length) await hosts.pop()!.close();
  await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
});
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
async function storedSha(fileName: string): Promise<string> {
  const upload = Object.values(svc.store.state.uploads).find((u) => u.fileName === fileName && u.status === 'completed')!;
  const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: upload.key }));
  return sha256(Buffer.from(await res.Body!.transformToByteArray()));
}

/** A host on its own data folder over the shared local service; records what reaches the "window". */
function host(name: string, extra: Partial<ServiceHostOptions> = {}) {
  const events: { event: EventName; payload: unknown }[] = [];
  const store = new Map<string, unknown>();
  const busy: boolean[] = [];
  const h = new ServiceHost({
    dataDir: join(work, name),
    store: { get: (k) => store.get(k), set: (k, v) => store.set(k, v) },
    secrets: { available: () => true, encrypt: (s) => `sealed:${s}`, decrypt: (s) => s.slice('sealed:'.length) },
    emit: (event, payload) => events.push({ event, payload }),
    pickFiles: async () => [],
    localService: { info: svc.info },
    busy: (working) => (busy.push(working), working),
    engine: { partRetry: { baseMs: 10, jitterMs: 10 }, stallTimeoutMs: 5000, retrySchedule: { baseMs: 300, maxMs: 300 } },
    ...extra,
  });
  hosts.push(h);
  const call = async <T>(channel: Parameters<ServiceHost['call']>[0], args?: unknown) => {
    const a = await h.call(channel, args);
    if (!a.ok) throw new Error(a.error);
    return a.value as T;
  };
  return { h, events, store, busy, call };
}

describe('the upload service in its worker thread', () => {
  it('answers calls by seq, relays events and writes settings through the host', async () => {
    const { h, events, store, call } = host('relay');
    expect(await h.start()).toEqual({ queueError: null });
    expect(await call('capture:service.status')).toEqual({ queueError: null });
    const view = await call<SettingsView>('capture:settings.useLocalService');
    expect(view).toMatchObject({ mode: 'local', configured: true });
    // The worker's settings write reached the host's store.
    expect(store.get('settings')).toMatchObject({ mode: 'local' });
    const file = join(work, 'relay.mp4');
    const bytes = randomBytes(2 * MiB);
    writeFileSync(file, bytes);
    const reg = await call<{ queued: number[] }>('capture:captures.register', [{ paths: [file], structure: view.structures[0]!.id, type: 'interior', capturedAt: '2026-11-22T08:00:00Z' }]);
    expect(reg.queued).toHaveLength(1);
    await vi.waitFor(() => expect(events.some((e) => e.event === 'capture:event.rows' && (e.payload as { files: { state: string }[] }).files.some((f) => f.state === 'completed'))).toBe(true), { timeout: 20_000 });
    expect(await storedSha('relay.mp4')).toBe(sha256(bytes));
  });

  it('seals a new password through the host, never storing it in clear', async () => {
    const { h, store } = host('secrets');
    await h.start();
    const answer = await h.call('capture:settings.save', {
      baseUrl: svc.info.baseUrl, authUrl: svc.info.authUrl, progressBaseUrl: '', projectId: svc.info.projectId,
      email: svc.info.account.email, password: svc.info.account.password, apiKey: svc.info.apiKey, concurrency: 2, structures: [],
    });
    expect(answer).toMatchObject({ ok: true, value: { hasPassword: true, hasApiKey: true, configured: true } });
    expect(store.get('settings')).toMatchObject({ sealedPassword: `sealed:${svc.info.account.password}`, sealedApiKey: `sealed:${svc.info.apiKey}` });
  });

  it('cancels a call by seq: the caller is answered at once', async () => {
    let release!: (paths: string[]) => void;
    const { h } = host('cancel', { pickFiles: () => new Promise((r) => (release = r)) });
    await h.start();
    const ac = new AbortController();
    const pick = h.call('capture:files.pick', undefined, ac.signal);
    await vi.waitFor(() => expect(release).toBeTypeOf('function'));
    ac.abort();
    expect(await pick).toEqual({ ok: false, error: 'Cancelled' });
    release(['/late']);
    // The worker still answers the next call (the late result was dropped, not mistaken for it).
    expect(await h.call('capture:service.status', undefined)).toEqual({ ok: true, value: { queueError: null } });
  });

  it('restarts a worker killed mid-drain: the files complete, every part stored once', async () => {
    const { h, events, busy, call } = host('crash');
    await h.start();
    const view = await call<SettingsView>('capture:settings.useLocalService');
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 8 * MiB });
    const files = [0, 1].map((i) => join(work, `crash-${i}.mp4`));
    for (const f of files) writeFileSync(f, randomBytes(16 * MiB));
    const before = { ...svc.storage.stats };
    await call('capture:captures.register', files.map((p) => ({ paths: [p], structure: view.structures[0]!.id, type: 'interior', capturedAt: '2026-11-22T08:00:00Z' })));
    await vi.waitFor(() => expect(svc.storage.stats.partsStored - before.partsStored).toBeGreaterThanOrEqual(2), { timeout: 20_000 });
    const first = h.thread!;
    await first.terminate();
    await vi.waitFor(() => expect(h.thread).toBeDefined());
    expect(h.thread).not.toBe(first);
    expect(events).toContainEqual({ event: 'capture:event.notice', payload: { level: 'error', message: RESTARTED } });
    expect(busy).toContain(false);
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    await vi.waitFor(async () => {
      const q = await call<{ files: { state: string }[] }>('capture:queue.list');
      expect(q.files.map((f) => f.state)).toEqual(['completed', 'completed']);
    }, { timeout: 30_000, interval: 200 });
    for (const f of files) expect(await storedSha(f.split('/').pop()!)).toBe(sha256(readFileSync(f)));
    // 16 MiB in 5 MiB parts: 4 parts a file, each stored exactly once.
    expect(svc.storage.stats.partsReplaced - before.partsReplaced).toBe(0);
    expect(svc.storage.stats.partsStored - before.partsStored).toBe(8);
    expect(events.some((e) => e.event === 'capture:event.queue' && (e.payload as { reason: string }).reason === 'restarted')).toBe(true);
  });

  it('opens even when the queue cannot: a queue of a newer version is a start error saying what to do', async () => {
    const dir = join(work, 'newer', 'queue');
    mkdirSync(dir, { recursive: true });
    const raw = new Database(join(dir, 'queue.db'));
    raw.pragma(`user_version = ${LATEST_VERSION + 1}`);
    raw.close();
    const { h, call, store } = host('newer');
    store.set('settings', { mode: 'local', baseUrl: '', authUrl: '', progressBaseUrl: '', projectId: '', email: '', concurrency: 2, structures: [] });
    const status = await h.start();
    expect(status.queueError).toContain('written by a newer version of Capture Uploader');
    expect(status.queueError).toContain(`The queue is kept in the folder ${dir}`);
    expect(status.queueError).toContain('move that folder aside');
    // The service still answers: the window can show the settings and the error.
    expect(await call('capture:service.status')).toEqual(status);
    expect(await call<SettingsView>('capture:settings.get')).toMatchObject({ mode: 'local' });
  });

  it('a garbage queue file is moved aside and the app carries on with a new queue, saying so', async () => {
    const dir = join(work, 'garbage', 'queue');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'queue.db'), randomBytes(8192));
    const { h, events, store } = host('garbage');
    store.set('settings', { mode: 'local', baseUrl: '', authUrl: '', progressBaseUrl: '', projectId: '', email: '', concurrency: 2, structures: [] });
    expect(await h.start()).toEqual({ queueError: null });
    await vi.waitFor(() => expect(events.some((e) => e.event === 'capture:event.notice' && /was damaged \(SQLite cannot read it whole.*\) and was moved to .*queue\.db\.corrupt-/.test((e.payload as { message: string }).message))).toBe(true));
  });

  it('a queue another process holds: the status says "in use by process N; waiting" until it is free, then the queue opens', async () => {
    const dir = join(work, 'busy', 'queue');
    mkdirSync(dir, { recursive: true });
    const release = lockQueue(dir); // as a `capture-uploader drain` holds it
    try {
      const { h, events, store, call } = host('busy');
      store.set('settings', { mode: 'local', baseUrl: '', authUrl: '', progressBaseUrl: '', projectId: '', email: '', concurrency: 2, structures: [] });
      const started = await h.start();
      expect(started.queueError).toMatch(new RegExp(`in use by process ${process.pid}; waiting\\.`));
      expect(started.queueError).not.toMatch(/aside|rename/);
      expect(await call('capture:service.status')).toEqual(started);
      release();
      await vi.waitFor(() => expect(h.status).toEqual({ queueError: null }), { timeout: 20_000 });
      expect(events.filter((e) => e.event === 'capture:event.service').at(-1)!.payload).toEqual({ queueError: null });
      expect(await call('capture:service.status')).toEqual({ queueError: null });
    } finally {
      release();
    }
  });

  it('a worker that keeps dying is restarted a few times, then the window is told it stopped for good', async () => {
    // A stand-in worker that starts and exits at once with code 3 (process.exit inside a worker ends that thread).
    const entry = new URL(`data:text/javascript,${encodeURIComponent("import { parentPort } from 'node:worker_threads'; parentPort.postMessage({ type: 'started', queueError: null }); setTimeout(() => process.exit(3), 20);")}`);
    const { h, events } = host('dying', { entry, maxRestarts: 2 });
    await h.start();
    await vi.waitFor(() => expect(h.status.queueError).toMatch(/^The upload service stopped 3 times within a minute \(last exit code 3\)/));
    expect(events.filter((e) => e.event === 'capture:event.notice')).toHaveLength(2);
    expect(events.at(-1)).toEqual({ event: 'capture:event.service', payload: h.status });
    expect(h.thread).toBeUndefined();
    expect(await h.call('capture:queue.list', undefined)).toEqual({ ok: false, error: 'The upload service is not running; try again in a moment.' });
    expect(await h.handlers()['capture:service.status']()).toEqual(h.status);
  });
});
