import { GetObjectCommand } from '@aws-sdk/client-s3';
import { writeNewerQueue } from '../testing/queue-backdoors.js';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestService } from '../../e2e/service/testing.js';
import { startTestService } from '../../e2e/service/testing.js';
import type { EventName, SettingsView } from '../../shared/ipc.js';
import { CANCEL_CHANNEL } from '../../shared/ipc.js';
import { lockQueue } from '../queue/lock.js';
import type { ServiceHostOptions } from './host.js';
import type { HostMessage } from '../service/protocol.js';
import { HUNG, RESTARTED, ServiceHost } from './host.js';
import { callDeadlineMessage } from './call-deadlines.js';
import { isoWithOffset, logFileName } from '../support/log-file.js';
import type { IpcHandlers } from '../ipc/dispatch.js';
import { createIpcDispatcher } from '../ipc/dispatch.js';
import { localSettings } from '../testing/kit.js';

/** How long after a cancel the service's handler must have stopped, in ms (see the cancel tests). */
const STOP_BOUND_MS = 1500;

// The upload service in its own process, driven as the Electron shell drives it, under plain
// Node (main/service-host/spawn.ts forks main/service/worker.ts from source with tsx's loader).
let svc: TestService;
let work: string;
const hosts: ServiceHost[] = [];
const MiB = 1024 * 1024;
// Closing service processes and the local service waits on other processes: on a loaded machine
// that takes longer than vitest's default 10 s for a hook, with every test passed.
const HOOK_MS = 60_000;
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'service-host-'));
}, HOOK_MS);
afterEach(async () => {
  while (hosts.length) await hosts.pop()!.close();
  await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
}, HOOK_MS);
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
}, HOOK_MS);

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
async function storedSha(fileName: string): Promise<string> {
  const upload = Object.values(svc.store.state.uploads).find(
    (u) => u.fileName === fileName && u.status === 'completed',
  )!;
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
    store: { get: (k) => store.get(k), set: (k, v) => void store.set(k, v), snapshot: () => Object.fromEntries(store) },
    secrets: { available: () => true, encrypt: (s) => `sealed:${s}`, decrypt: (s) => s.slice('sealed:'.length) },
    emit: (event, payload) => events.push({ event, payload }),
    pickFiles: async () => [],
    localService: { info: svc.info },
    busy: (working) => (busy.push(working), working),
    engine: {
      partRetry: { baseMs: 10, jitterMs: 10 },
      stallTimeoutMs: 5000,
      retrySchedule: { baseMs: 300, maxMs: 300 },
    },
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

/**
 * Waits for the service's line saying how the inspect ended, and asserts it was stopped by its
 * signal within STOP_BOUND_MS. One second is the promise; the half second more is for a test
 * machine's scheduler under parallel test files. A walk of 20,000 files that ignores the signal
 * runs on for over 2 s.
 */
async function expectInspectStopped(logs: string[]): Promise<void> {
  await vi.waitFor(() => expect(logs.some((l) => l.startsWith('capture:files.inspect '))).toBe(true), {
    timeout: 60_000,
    interval: 100,
  });
  const line = logs.find((l) => l.startsWith('capture:files.inspect '))!;
  expect(line).toMatch(/^capture:files\.inspect stopped \d+ ms after it was cancelled\.$/);
  expect(Number(/stopped (\d+) ms/.exec(line)![1])).toBeLessThan(STOP_BOUND_MS);
}

describe('the upload service in its own process', () => {
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
    const reg = await call<{ queued: number[] }>('capture:captures.register', [
      { paths: [file], structure: view.structures[0]!.id, type: 'interior', capturedAt: '2026-11-22T08:00:00Z' },
    ]);
    expect(reg.queued).toHaveLength(1);
    await vi.waitFor(
      () =>
        expect(
          events.some(
            (e) =>
              e.event === 'capture:event.rows' &&
              (e.payload as { files: { state: string }[] }).files.some((f) => f.state === 'completed'),
          ),
        ).toBe(true),
      { timeout: 20_000 },
    );
    expect(await storedSha('relay.mp4')).toBe(sha256(bytes));
  });

  it('seals a new password through the host, never storing it in clear', async () => {
    const { h, store } = host('secrets');
    await h.start();
    const answer = await h.call('capture:settings.save', {
      baseUrl: svc.info.baseUrl,
      authUrl: svc.info.authUrl,
      progressBaseUrl: '',
      projectId: svc.info.projectId,
      email: svc.info.account.email,
      password: svc.info.account.password,
      apiKey: svc.info.apiKey,
      concurrency: 2,
      structures: [],
    });
    expect(answer).toMatchObject({ ok: true, value: { hasPassword: true, hasApiKey: true, configured: true } });
    expect(store.get('settings')).toMatchObject({
      sealedPassword: `sealed:${svc.info.account.password}`,
      sealedApiKey: `sealed:${svc.info.apiKey}`,
    });
    // The service writes the settings again (a bandwidth limit): the secrets are sealed again, never stored as its stand-ins.
    expect(await h.call('capture:engine.limits', { bandwidthBytesPerSecond: 1024 * 1024 })).toMatchObject({ ok: true });
    expect(store.get('settings')).toMatchObject({
      bandwidthBytesPerSecond: 1024 * 1024,
      sealedPassword: `sealed:${svc.info.account.password}`,
      sealedApiKey: `sealed:${svc.info.apiKey}`,
    });
    expect(JSON.stringify([...store.values()])).not.toContain('sealing-by-host');
    // A new process reads them from the settings file, unsealed by the host at its start.
    const first = h.child!.pid;
    h.child!.kill('SIGKILL');
    await vi.waitFor(() => expect(h.child?.pid ?? first).not.toBe(first), { timeout: 20_000 });
    await vi.waitFor(
      async () =>
        expect(await h.call('capture:settings.get', undefined)).toMatchObject({
          ok: true,
          value: { hasPassword: true },
        }),
      { timeout: 20_000 },
    );
    expect(await h.call('capture:designs.check', undefined)).toMatchObject({ ok: true });
  });

  it('cancels a call by seq: the caller is answered at once', async () => {
    let release!: (paths: string[]) => void;
    const { h } = host('cancel', { pickFiles: () => new Promise((r) => (release = r)) });
    await h.start();
    const ac = new AbortController();
    const pick = h.call('capture:files.pick', undefined, ac.signal);
    await vi.waitFor(() => expect(release).toBeTypeOf('function'), { timeout: 20_000 });
    ac.abort();
    expect(await pick).toEqual({ ok: false, error: 'Cancelled' });
    release(['/late']);
    // The worker still answers the next call (the late result was dropped, not mistaken for it).
    expect(await h.call('capture:service.status', undefined)).toEqual({ ok: true, value: { queueError: null } });
  });

  it('a cancelled inspect stops in the service within a second (its signal aborted), and the service answers on', async () => {
    const logs: string[] = [];
    const { h, call } = host('cancel-inspect', { log: { info: (m) => logs.push(m), warn: (m) => logs.push(m) } });
    await h.start();
    const dir = join(work, 'many-files');
    mkdirSync(dir);
    // Enough files that the inspection is still walking them when the cancel arrives.
    for (let i = 0; i < 20_000; i++) writeFileSync(join(dir, `clip-${i}.mp4`), 'x');
    const ac = new AbortController();
    const inspecting = h.call('capture:files.inspect', [dir], ac.signal);
    await new Promise((r) => setTimeout(r, 300));
    ac.abort();
    expect(await inspecting).toEqual({ ok: false, error: 'Cancelled' });
    // The service says how the call ended: stopped by its signal, not run to its end.
    await expectInspectStopped(logs);
    expect(await call('capture:service.status')).toEqual({ queueError: null });
  }, 120_000);

  it('a call posted right after the start, before the queue opened, waits for it and is answered', async () => {
    const { h } = host('early-call');
    const starting = h.start();
    // Posted after `start` on the same channel: it reaches the service while its queue is still opening.
    const early = h.call('capture:service.status', undefined);
    expect(await early).toEqual({ ok: true, value: { queueError: null } });
    expect(await starting).toEqual({ queueError: null });
  });

  it('a channel the service has no handler for is refused by name, and the service answers on', async () => {
    const { h, call } = host('unknown-channel');
    await h.start();
    expect(await h.call('capture:no-such-channel' as never, undefined)).toEqual({
      ok: false,
      error: 'Unknown request capture:no-such-channel',
    });
    expect(await call('capture:service.status')).toEqual({ queueError: null });
  });

  it('a cancel that reaches the service after its call was answered is ignored: the service answers on, never restarted', async () => {
    const { h, events, call } = host('late-cancel');
    await h.start();
    expect(await call('capture:service.status')).toEqual({ queueError: null });
    // The race the protocol allows: the host cancels while the answer is on its way, so the
    // cancel names a call the service no longer holds. (The host's own cancel path never sends
    // one for a call it has its answer to; the message is posted as the host would.)
    const answered = (h as unknown as { seq: number }).seq;
    (h as unknown as { post(m: HostMessage): void }).post({ type: 'cancel', seq: answered });
    expect(await call('capture:service.status')).toEqual({ queueError: null });
    await new Promise((r) => setTimeout(r, 500));
    expect(await call('capture:service.status')).toEqual({ queueError: null });
    expect(events.filter((e) => JSON.stringify(e.payload).includes(RESTARTED))).toEqual([]);
  });

  it("the window's cancel by call id goes through the IPC dispatch to the service: the inspect stops there within a second", async () => {
    const logs: string[] = [];
    const { h } = host('door-cancel', { log: { info: (m) => logs.push(m), warn: (m) => logs.push(m) } });
    await h.start();
    const dir = join(work, 'many-files-door');
    mkdirSync(dir);
    for (let i = 0; i < 20_000; i++) writeFileSync(join(dir, `clip-${i}.mp4`), 'x');
    // The shell's IPC dispatch over the host's handlers, as main/electron/main.ts builds it.
    const dispatch = createIpcDispatcher(h.handlers() as IpcHandlers, (url) => url === 'app://window');
    const window = { url: 'app://window', isTopFrame: true };
    const inspecting = dispatch('capture:files.inspect', [dir], window, undefined, 'inspect-1');
    await new Promise((r) => setTimeout(r, 300));
    expect(await dispatch(CANCEL_CHANNEL, { callId: 'inspect-1' }, window)).toEqual({ ok: true, value: true });
    expect(await inspecting).toEqual({ ok: false, error: 'Cancelled' });
    await expectInspectStopped(logs);
  }, 120_000);

  it('a cancelled sheet export (§4.2) stops on the wire: nothing recorded, no export made, and the next one goes through', async () => {
    const logs: string[] = [];
    const { h, call } = host('cancel-export', { log: { info: (m) => logs.push(m), warn: (m) => logs.push(m) } });
    await h.start();
    await call('capture:settings.useLocalService');
    const emails = async () => ((await (await svc.admin('GET', '/emails')).json()) as { emails: unknown[] }).emails;
    const before = (await emails()).length;
    // The export request held on the wire: a silent link until the client gives up.
    await svc.admin('POST', '/faults', {
      target: 'gateway',
      operation: 'project-folder-with-default-sheet',
      action: { type: 'hang' },
    });
    const ac = new AbortController();
    const exporting = h.call('capture:designs.export', undefined, ac.signal);
    await new Promise((r) => setTimeout(r, 500));
    ac.abort();
    expect(await exporting).toEqual({ ok: false, error: 'Cancelled' });
    await vi.waitFor(() => expect(logs.some((l) => l.startsWith('capture:designs.export '))).toBe(true), {
      timeout: 30_000,
      interval: 100,
    });
    expect(logs.find((l) => l.startsWith('capture:designs.export '))).toMatch(
      /^capture:designs\.export stopped \d+ ms after it was cancelled\.$/,
    );
    await svc.admin('DELETE', '/faults');
    expect(await call('capture:designs.check')).toMatchObject({ lastExport: null });
    expect((await emails()).length).toBe(before);
    expect(await call('capture:designs.export')).toMatchObject({ message: expect.stringMatching(/being generated/) });
    expect(await call('capture:designs.check')).toMatchObject({ lastExport: { requestedAt: expect.any(String) } });
  }, 120_000);

  it('restarts a service process killed with SIGKILL mid-drain: the files complete byte-identical, no part sent twice', async () => {
    const warned: string[] = [];
    const { h, events, busy, call } = host('crash', { log: { info: () => {}, warn: (m) => warned.push(m) } });
    await h.start();
    const view = await call<SettingsView>('capture:settings.useLocalService');
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 8 * MiB });
    const files = [0, 1].map((i) => join(work, `crash-${i}.mp4`));
    for (const f of files) writeFileSync(f, randomBytes(16 * MiB));
    const before = { ...svc.storage.stats };
    await call(
      'capture:captures.register',
      files.map((p) => ({
        paths: [p],
        structure: view.structures[0]!.id,
        type: 'interior',
        capturedAt: '2026-11-22T08:00:00Z',
      })),
    );
    await vi.waitFor(() => expect(svc.storage.stats.partsStored - before.partsStored).toBeGreaterThanOrEqual(2), {
      timeout: 20_000,
    });
    const first = h.child!;
    const firstPid = first.pid!;
    const busyAtKill = busy.length;
    // As a native crash would: no handler, no clean-up in the service.
    first.kill('SIGKILL');
    await vi.waitFor(() => expect(h.child?.pid ?? firstPid).not.toBe(firstPid), { timeout: 20_000 });
    expect(() => process.kill(firstPid, 0)).toThrow();
    // The dead service's power-save blocker is released by the host at once, before the new
    // service (which resumes the drain) asks for it again.
    expect(busy[busyAtKill]).toBe(false);
    expect(warned).toContain('The upload service stopped (killed by SIGKILL); starting it again.');
    // The window is told once.
    expect(
      events.filter(
        (e) => e.event === 'capture:event.notice' && (e.payload as { message: string }).message === RESTARTED,
      ),
    ).toHaveLength(1);
    expect(busy).toContain(false);
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    await vi.waitFor(
      async () => {
        const q = await call<{ files: { state: string }[] }>('capture:queue.list');
        expect(q.files.map((f) => f.state)).toEqual(['completed', 'completed']);
      },
      { timeout: 30_000, interval: 200 },
    );
    for (const f of files) expect(await storedSha(f.split('/').pop()!)).toBe(sha256(readFileSync(f)));
    // 16 MiB in 5 MiB parts: 4 parts a file, each received whole by storage (its PUT) and stored exactly once.
    expect(svc.storage.stats.partsReplaced - before.partsReplaced).toBe(0);
    expect(svc.storage.stats.partsStored - before.partsStored).toBe(8);
    expect(svc.storage.stats.partBodiesReceived - before.partBodiesReceived).toBe(8);
    expect(
      events.filter(
        (e) => e.event === 'capture:event.notice' && (e.payload as { message: string }).message === RESTARTED,
      ),
    ).toHaveLength(1);
    expect(
      events.some((e) => e.event === 'capture:event.queue' && (e.payload as { reason: string }).reason === 'restarted'),
    ).toBe(true);
  });

  it('a service stopped with SIGSTOP mid-drain is noticed: the call waiting is answered with why, the window told once, the process killed and started again, nothing sent or registered twice', async () => {
    const warned: string[] = [];
    // A short deadline for the test (the app's is HEARTBEAT.deadlineMs); still far above what a
    // live service on a loaded machine takes to answer a ping.
    const { h, events, busy, call } = host('stopped', {
      log: { info: () => {}, warn: (m) => warned.push(m) },
      heartbeat: { intervalMs: 1000, deadlineMs: 8000 },
    });
    await h.start();
    const view = await call<SettingsView>('capture:settings.useLocalService');
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 8 * MiB });
    const files = [0, 1].map((i) => join(work, `stopped-${i}.mp4`));
    for (const f of files) writeFileSync(f, randomBytes(16 * MiB));
    const before = { ...svc.storage.stats };
    const capture = (p: string) => ({
      paths: [p],
      structure: view.structures[0]!.id,
      type: 'interior',
      capturedAt: '2026-11-22T08:00:00Z',
    });
    await call('capture:captures.register', [capture(files[0]!)]);
    await vi.waitFor(() => expect(svc.storage.stats.partsStored - before.partsStored).toBeGreaterThanOrEqual(2), {
      timeout: 20_000,
    });
    // The second capture's registration is on the wire when the service stops: the gateway
    // registers it, and its answer goes to a process that no longer reads.
    await svc.admin('POST', '/faults', {
      target: 'gateway',
      operation: 'add-capture',
      times: 1,
      action: { type: 'latency', ms: 3000 },
    });
    await call('capture:captures.register', [capture(files[1]!)]);
    const fired = async () =>
      ((await (await svc.admin('GET', '/faults')).json()) as { rules: { fired: number }[] }).rules[0]?.fired ?? 0;
    await vi.waitFor(async () => expect(await fired()).toBe(1), { timeout: 20_000, interval: 50 });
    const stoppedPid = h.child!.pid!;
    const busyAtStop = busy.length;
    process.kill(stoppedPid, 'SIGSTOP');
    const stoppedAt = performance.now();
    try {
      const listing = h.call('capture:queue.list', undefined);
      // Help › Save a report for support while it hangs: bounded too.
      const reporting = h.report(join(work, 'stopped-report.zip'));
      const answer = await Promise.race([
        listing,
        new Promise<'no answer'>((r) => setTimeout(() => r('no answer'), 60_000).unref()),
      ]);
      expect(answer).toEqual({ ok: false, error: HUNG });
      expect(await reporting).toEqual({ ok: false, error: HUNG });
      // Not before its deadline: silence counts from the last message heard, at most a ping's interval before the stop.
      expect(performance.now() - stoppedAt).toBeGreaterThan(8000 - 1000 - 100);
      await vi.waitFor(() => expect(h.child?.pid ?? stoppedPid).not.toBe(stoppedPid), { timeout: 20_000 });
      // Killed, not left stopped beside the new one.
      expect(() => process.kill(stoppedPid, 0)).toThrow();
    } finally {
      // On a host that never notices, the stopped process is not left behind.
      try {
        process.kill(stoppedPid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    expect(busy[busyAtStop]).toBe(false);
    expect(warned).toContainEqual(expect.stringMatching(/^The upload service did not answer for \d+ s/));
    const told = () =>
      events.filter((e) => e.event === 'capture:event.notice').map((e) => (e.payload as { message: string }).message);
    expect(told().filter((m) => m === HUNG)).toHaveLength(1);
    expect(told()).not.toContain(RESTARTED);
    await svc.admin('DELETE', '/faults');
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: null });
    // The recording whose parts were on the wire completes; the one whose registration was on the
    // wire is in doubt, as after a crash (§4.4 is not idempotent): for a person, never sent again.
    type Listed = { files: { fileName: string; state: string }[]; captures: { state: string; error: string | null }[] };
    await vi.waitFor(
      async () => {
        const q = await call<Listed>('capture:queue.list');
        expect(q.files.map((f) => [f.fileName, f.state])).toEqual([
          ['stopped-0.mp4', 'completed'],
          ['stopped-1.mp4', 'waiting'],
        ]);
        expect(q.captures.map((c) => c.state)).toEqual(['completed', 'registration_unknown']);
      },
      { timeout: 60_000, interval: 200 },
    );
    expect(await storedSha('stopped-0.mp4')).toBe(sha256(readFileSync(files[0]!)));
    // Each recording registered once at the gateway: one upload per file name.
    for (const name of ['stopped-0.mp4', 'stopped-1.mp4'])
      expect(Object.values(svc.store.state.uploads).filter((u) => u.fileName === name)).toHaveLength(1);
    // 16 MiB in 5 MiB parts: 4 parts, each body received whole by storage once.
    expect(svc.storage.stats.partsReplaced - before.partsReplaced).toBe(0);
    expect(svc.storage.stats.partsStored - before.partsStored).toBe(4);
    expect(svc.storage.stats.partBodiesReceived - before.partBodiesReceived).toBe(4);
    expect(told().filter((m) => m === HUNG)).toHaveLength(1);
  }, 180_000);

  it('a call the service never answers is answered at its deadline with why, and the service answers on', async () => {
    // The file dialog behind the call never closes.
    const { h, call } = host('call-deadline', { pickFiles: () => new Promise(() => {}) });
    await h.start();
    const answer = await Promise.race([
      h.call('capture:files.pick', undefined, undefined, 1500),
      new Promise<'no answer'>((r) => setTimeout(() => r('no answer'), 15_000).unref()),
    ]);
    expect(answer).toEqual({ ok: false, error: callDeadlineMessage('capture:files.pick', 1500) });
    expect(callDeadlineMessage('capture:files.pick', 1500)).toMatch(
      /^The upload service did not answer within 2 s \(capture:files\.pick\); that work was asked to stop\. Try again/,
    );
    expect(await call('capture:service.status')).toEqual({ queueError: null });
  });

  it('the support report has a deadline: past it the gathering stops, nothing is written, and the service answers on', async () => {
    const logDir = join(work, 'report-deadline-logs');
    mkdirSync(logDir, { recursive: true });
    // A month of busy nights: more log than the service can scrub and compress within the deadline.
    const line = `${JSON.stringify({ at: '2026-11-27T03:15:00.000+01:00', level: 'warn', source: 'service', kind: 'file', message: 'VID_20261123_080000_00_001.insv: pending — the capture service answers 503; retried at 03:30' })}\n`;
    const day = line.repeat(Math.ceil((4 * MiB) / line.length));
    // The last 8 days, today's first: the service's own log keeps 14 days and deletes older files.
    for (let d = 0; d < 8; d++)
      writeFileSync(join(logDir, logFileName(isoWithOffset(Date.now() - d * 86_400_000).slice(0, 10))), day);
    const logs: string[] = [];
    const { h, call } = host('report-deadline', {
      logDir,
      log: { info: (m) => logs.push(m), warn: (m) => logs.push(m) },
    });
    await h.start();
    const outDir = join(work, 'report-deadline-out');
    mkdirSync(outDir);
    const out = join(outDir, 'report.zip');
    const answer = await Promise.race([
      // A deadline no machine meets for 32 MiB of log to scrub and compress, however fast.
      h.report(out, {}, 100),
      new Promise<'no answer'>((r) => setTimeout(() => r('no answer'), 30_000).unref()),
    ]);
    expect(answer).toEqual({
      ok: false,
      error: `The report was not written within 0.1 s, and its gathering was stopped; nothing was written to ${out}. Try again in a moment.`,
    });
    await vi.waitFor(
      () =>
        expect(logs).toContainEqual(
          expect.stringMatching(/^The report for support stopped \d+ ms after it was cancelled\.$/),
        ),
      {
        timeout: 20_000,
      },
    );
    expect(readdirSync(outDir)).toEqual([]);
    expect(await call('capture:service.status')).toEqual({ queueError: null });
    // Given the time, the same report is written whole.
    const whole = await h.report(out);
    expect(whole).toMatchObject({ ok: true, value: { out } });
    expect(readdirSync(outDir)).toEqual(['report.zip']);
  }, 90_000);

  it('opens even when the queue cannot: a queue of a newer version is a start error saying what to do', async () => {
    const dir = join(work, 'newer', 'queue');
    writeNewerQueue(dir);
    const { h, call, store } = host('newer');
    store.set('settings', localSettings());
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
    store.set('settings', localSettings());
    expect(await h.start()).toEqual({ queueError: null });
    await vi.waitFor(() =>
      expect(
        events.some(
          (e) =>
            e.event === 'capture:event.notice' &&
            /was damaged \(SQLite cannot read it whole.*\) and was moved to .*queue\.db\.corrupt-/.test(
              (e.payload as { message: string }).message,
            ),
        ),
      ).toBe(true),
    );
  });

  it('a queue another process holds: the status says "in use by process N; waiting" until it is free, then the queue opens', async () => {
    const dir = join(work, 'busy', 'queue');
    mkdirSync(dir, { recursive: true });
    const release = lockQueue(dir); // as a `capture-uploader drain` holds it
    try {
      const { h, events, store, call } = host('busy');
      store.set('settings', localSettings());
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

  it('a request of a service that died is not answered to the next one (its seq means another question there)', async () => {
    const marker = join(work, 'asked-once');
    const entry = join(work, 'asking.mjs');
    writeFileSync(
      entry,
      `import { existsSync, writeFileSync } from 'node:fs';
process.on('message', (m) => {
  if (m.type === 'start' && !existsSync(${JSON.stringify(marker)})) {
    writeFileSync(${JSON.stringify(marker)}, '');
    process.send({ type: 'started', queueError: null });
    process.send({ type: 'request', seq: 1, op: 'pickFiles' });
    setTimeout(() => process.exit(1), 50);
  } else if (m.type === 'start') {
    process.send({ type: 'started', queueError: null });
    process.send({ type: 'request', seq: 1, op: 'busy', working: true });
  } else if (m.type === 'reply') process.send({ type: 'log', level: 'info', message: JSON.stringify(m.answer) });
  else if (m.type === 'close') process.exit(0);
});`,
    );
    const logs: string[] = [];
    const { h } = host('asking', {
      entry,
      log: { info: (m) => logs.push(m), warn: () => {} },
      pickFiles: () => new Promise((r) => setTimeout(() => r(['/late']), 1500)),
    });
    await h.start();
    await vi.waitFor(() => expect(logs).toContain(JSON.stringify({ ok: true, value: true })), { timeout: 20_000 });
    // The dialog's late answer (for the dead process's seq 1) never reaches the new process.
    await new Promise((r) => setTimeout(r, 2000));
    expect(logs.filter((l) => l.startsWith('{'))).toEqual([JSON.stringify({ ok: true, value: true })]);
  });

  it('a service that dies before it ever starts: the start is answered with why, not left waiting', async () => {
    const entry = join(work, 'stillborn.mjs');
    writeFileSync(entry, 'setTimeout(() => process.exit(4), 20);');
    const { h, events } = host('stillborn', { entry, maxRestarts: 1 });
    const status = await Promise.race([
      h.start(),
      new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), 20_000).unref()),
    ]);
    expect(status).toEqual({
      queueError: expect.stringMatching(/^The upload service stopped 2 times within a minute \(last: exit code 4\)/),
    });
    expect(events).toContainEqual({ event: 'capture:event.service', payload: status });
  });

  it('a service that ends because the app closes is not started again', async () => {
    const { h, events, busy } = host('closing');
    await h.start();
    const pid = h.child!.pid!;
    await h.close();
    expect(() => process.kill(pid, 0)).toThrow();
    expect(h.child).toBeUndefined();
    expect(events.filter((e) => e.event === 'capture:event.notice')).toEqual([]);
    expect(busy).not.toContain(false);
  });

  it('a service that keeps dying is restarted a few times, then the window is told it stopped for good', async () => {
    // A stand-in service that starts and exits at once with code 3.
    const entry = join(work, 'dying.mjs');
    writeFileSync(entry, "process.send({ type: 'started', queueError: null }); setTimeout(() => process.exit(3), 20);");
    const { h, events } = host('dying', { entry, maxRestarts: 2 });
    await h.start();
    // Three process starts: generous on a loaded machine.
    await vi.waitFor(
      () =>
        expect(h.status.queueError).toMatch(
          /^The upload service stopped 3 times within a minute \(last: exit code 3\)/,
        ),
      { timeout: 20_000 },
    );
    expect(events.filter((e) => e.event === 'capture:event.notice')).toHaveLength(2);
    expect(events.at(-1)).toEqual({ event: 'capture:event.service', payload: h.status });
    expect(h.child).toBeUndefined();
    expect(await h.call('capture:queue.list', undefined)).toEqual({
      ok: false,
      error: 'The upload service is not running; try again in a moment.',
    });
    expect(await h.handlers()['capture:service.status']()).toEqual(h.status);
  });
});
