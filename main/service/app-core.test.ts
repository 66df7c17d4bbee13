import { randomBytes } from 'node:crypto';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { recommendedRetryPolicy } from '../api/errors.js';
import type { NamedStructure } from '../../shared/ipc.js';
import { AppCore } from './app-core.js';
import { useTestService } from '../testing/kit.js';
import { registerOnFirstStructure } from '../testing/app-register.js';

const t = useTestService('app-core', { clearFaults: true });

/** A core on its own data folder, over the shared local service, with short delays. */
async function core(name: string, extra: Partial<ConstructorParameters<typeof AppCore>[0]> = {}) {
  const notices: { level: string; message: string }[] = [];
  const notified: string[] = [];
  const events: { event: string; payload: unknown }[] = [];
  const map = new Map<string, unknown>();
  const c = new AppCore({
    dataDir: join(t.work, name),
    store: { get: (k) => map.get(k), set: (k, v) => map.set(k, v) },
    secrets: { available: () => true, encrypt: (s) => s, decrypt: (s) => s },
    emit: (event, payload) => {
      events.push({ event, payload });
      if (event === 'capture:event.notice') notices.push(payload as { level: string; message: string });
    },
    pickFiles: async () => [],
    startLocalService: async () => ({ ...t.svc, close: async () => {} }),
    notify: (title, body) => notified.push(`${title}: ${body}`),
    engine: { partRetry: recommendedRetryPolicy(10, 10), stallTimeoutMs: 5000, retrySchedule: { delayMs: () => 300 } },
    ...extra,
  });
  t.keep(c);
  await c.start();
  const h = c.handlers();
  await h['capture:settings.useLocalService']();
  return { c, h, notices, notified, events };
}

describe('AppCore', () => {
  it("tells the shell the queue's totals as it opens, before anything changes (the tray, and the default of start at login)", async () => {
    const seen: { files: number; completed: number }[] = [];
    await core('opens-with-totals', { totals: (t) => seen.push(t) });
    expect(seen[0]).toMatchObject({ files: 0, completed: 0, cancelled: 0 });
  });

  it('inspects dropped files, registers them, sends the rows that change and says once when the queue finished', async () => {
    const { c, h, notified, events } = await core('happy');
    const file = join(t.work, 'walk.mp4');
    writeFileSync(file, randomBytes(2 * 1024 * 1024));
    const inspected = await h['capture:files.inspect']([file]);
    expect(inspected.captures.map((p) => [p.label, p.alreadyQueued, p.violation])).toEqual([
      ['walk.mp4', false, undefined],
    ]);
    const structure = c.settings.view().structures[0]!;
    await registerOnFirstStructure(c, [file], '2026-11-22T08:00:00Z');
    // Random bytes carry no MP4 boxes: the capture's warning reaches the finish too.
    await vi.waitFor(
      () =>
        expect(notified).toContainEqual(
          expect.stringMatching(
            /^Queue finished: Queue finished at \d\d:\d\d: 1 file, 2\.1 MB; 1 capture with warnings\.$/,
          ),
        ),
      { timeout: 15_000 },
    );
    const view = c.queueView();
    expect(view.files.map((f) => [f.state, f.bytesSent === f.size])).toEqual([['completed', true]]);
    expect(view.totals).toMatchObject({
      files: 1,
      completed: 1,
      bytesTotal: 2 * 1024 * 1024,
      bytesDone: 2 * 1024 * 1024,
      bytesRemaining: 0,
      needYou: 0,
    });
    // The screen is told what changed (the file's row as committed, changes of 50 ms gathered in one
    // message), never "reload everything".
    const rows = events
      .filter((e) => e.event === 'capture:event.rows')
      .map((e) => e.payload as import('../../shared/ipc.js').EventPayload<'capture:event.rows'>);
    expect(rows[0]!.files.map((f) => f.fileName)).toEqual(['walk.mp4']);
    expect(rows[0]!.captures.map((cap) => [cap.label, cap.structure, cap.type, cap.capturedAt])).toEqual([
      ['walk.mp4', structure.id, 'interior', '2026-11-22T08:00:00Z'],
    ]);
    expect(rows.flatMap((r) => r.files.map((f) => f.state)).at(-1)).toBe('completed');
    expect(rows.at(-1)!.totals).toMatchObject({ completed: 1, uploading: 0 });
    expect(
      events.filter((e) => e.event === 'capture:event.queue').map((e) => (e.payload as { reason: string }).reason),
    ).toEqual(['opened']);
    const progress = events
      .filter((e) => e.event === 'capture:event.progress')
      .map((e) => e.payload as import('../../shared/ipc.js').EventPayload<'capture:event.progress'>);
    // Progress in order: sampled, never going back, never past the file's size.
    const done = progress.map((p) => p.totals.bytesDone);
    expect(done).not.toEqual([]);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(Math.max(...done)).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect((await h['capture:files.inspect']([file])).captures[0]!.alreadyQueued).toBe(true);
  });

  it('queues a card at once and registers it in the background, says once what needs a person, and says while the computer is kept awake', async () => {
    const blocker: boolean[] = [];
    const { c, h, notified, events } = await core('card', { busy: (on) => (blocker.push(on), on), gatherMs: 1500 });
    const structure = c.settings.view().structures[0]!;
    const walks = [1, 2, 3].map((n) => join(t.work, `card-walk-${n}.mp4`));
    for (const w of walks) writeFileSync(w, randomBytes(256 * 1024));
    // Each registration takes 400 ms: the confirmation must not wait for them one by one.
    await t.svc.admin('POST', '/faults', {
      target: 'gateway',
      operation: 'add-capture',
      action: { type: 'latency', ms: 400 },
    });
    const res = await h['capture:captures.register'](
      walks.map((w, i) => ({
        paths: [w],
        structure: structure.id,
        type: 'interior' as const,
        capturedAt: `2026-11-22T08:0${i}:00Z`,
      })),
    );
    expect(res.queued).toHaveLength(3);
    const justAfter = c.queueView();
    expect(justAfter.captures.filter((x) => ['queued', 'registering'].includes(x.state)).length).toBeGreaterThanOrEqual(
      2,
    );
    expect(justAfter.keptAwake).toBe(true);
    await vi.waitFor(
      () => expect(c.queueView().files.map((f) => f.state)).toEqual(['completed', 'completed', 'completed']),
      { timeout: 20_000 },
    );
    await t.svc.admin('DELETE', '/faults');

    // Three captures the service refuses, at once: one notification naming them, not three.
    const refused = [1, 2, 3].map((n) => join(t.work, `card-refused-${n}.mp4`));
    for (const w of refused) writeFileSync(w, randomBytes(64 * 1024));
    await h['capture:captures.register'](
      refused.map((w, i) => ({
        paths: [w],
        structure: 'no-such-structure',
        type: 'interior' as const,
        capturedAt: `2026-11-22T09:0${i}:00Z`,
      })),
    );
    await vi.waitFor(() => expect(notified.filter((n) => /need you/.test(n))).toHaveLength(1), { timeout: 10_000 });
    // Named in the order they were refused: two registration lanes may refuse them in any order.
    const gathered = /^3 uploads need you: (.+)\. Open the queue/.exec(notified.find((n) => /need you/.test(n))!);
    expect(gathered?.[1]!.split(', ').sort()).toEqual([
      'card-refused-1.mp4',
      'card-refused-2.mp4',
      'card-refused-3.mp4',
    ]);
    expect(notified.filter((n) => n.startsWith('Upload needs you'))).toEqual([]);

    // The screen heard when the computer was kept awake and when no longer; the blocker was released.
    await vi.waitFor(() => expect(c.queueView().keptAwake).toBe(false));
    const power = events.filter((e) => e.event === 'capture:event.power').map((e) => e.payload);
    expect(power[0]).toEqual({ keptAwake: true });
    expect(power.at(-1)).toEqual({ keptAwake: false });
    expect(blocker.at(-1)).toBe(false);
  });

  it('tries a file that failed for a passing reason again by itself, resuming it, and shows when', async () => {
    const { c, h, notices, notified } = await core('auto-retry');
    const file = join(t.work, 'flaky.mp4');
    writeFileSync(file, randomBytes(6 * 1024 * 1024));
    // Five answers of 500 for part 2: more than a part's four retries, so the attempt ends once.
    await t.svc.admin('POST', '/faults', {
      target: 'storage',
      operation: 'UploadPart',
      partNumber: 2,
      times: 5,
      action: { type: 'status', status: 500 },
    });
    const structure = c.settings.view().structures[0]!;
    const seen: { state: string; retryAt: number | null; attempts: number }[] = [];
    const poll = setInterval(() => {
      const f = c.queueView().files[0];
      if (f) seen.push({ state: f.state, retryAt: f.retryAt, attempts: f.attempts });
    }, 20);
    try {
      await h['capture:captures.register']([
        { paths: [file], structure: structure.id, type: 'exterior', capturedAt: '2026-11-22T08:00:00Z' },
      ]);
      await vi.waitFor(() => expect(c.queueView().files[0]?.state).toBe('completed'), { timeout: 20_000 });
    } finally {
      clearInterval(poll);
    }
    // Between the attempts the queue showed the file waiting with its retry time and attempt count.
    expect(seen).toContainEqual({ state: 'pending', retryAt: expect.any(Number), attempts: 1 });
    expect(notified.filter((n) => n.startsWith('Upload needs you'))).toEqual([]);
    expect(notices.filter((n) => /flaky/.test(n.message))).toEqual([]);
  });

  it('leaves a refused file for a person and says so', async () => {
    const { c, h, notified } = await core('refused');
    const file = join(t.work, 'growing.mp4');
    writeFileSync(file, randomBytes(6 * 1024 * 1024));
    await t.svc.admin('POST', '/faults', {
      target: 'storage',
      operation: 'UploadPart',
      action: { type: 'latency', ms: 300 },
    });
    const structure = c.settings.view().structures[0]!;
    await h['capture:captures.register']([
      { paths: [file], structure: structure.id, type: 'interior', capturedAt: '2026-11-22T08:00:00Z' },
    ]);
    appendFileSync(file, 'the camera was still writing');
    await vi.waitFor(
      () =>
        expect(
          notified.some((n) => n.startsWith('Upload needs you: growing.mp4:') && n.includes('changed while uploading')),
        ).toBe(true),
      { timeout: 15_000 },
    );
    expect(c.queueView().files[0]!.state).toBe('failed');
  });

  it('corrects a refused capture from the queue and registers it again; removes one lens; clears completed', async () => {
    const { c, h } = await core('correct');
    const walk = join(t.work, 'refused-walk.mp4');
    writeFileSync(walk, randomBytes(1024 * 1024));
    await h['capture:captures.register']([
      { paths: [walk], structure: 'no-such-structure', type: 'interior', capturedAt: '2026-11-22T08:00:00Z' },
    ]);
    await vi.waitFor(() => expect(c.queueView().captures[0]?.state).toBe('rejected'), { timeout: 10_000 });
    expect(c.queueView().totals).toMatchObject({ needYou: 1, captures: 1 });
    const structure = c.settings.view().structures[1]!;
    await h['capture:queue.edit']({
      captureRow: c.queueView().captures[0]!.id,
      structure: structure.id,
      design: structure.designs[0]!.id,
      type: 'exterior',
      capturedAt: '2026-11-22T09:00:00+01:00',
    });
    await vi.waitFor(() => expect(c.queueView().files[0]?.state).toBe('completed'), { timeout: 15_000 });
    const registered = Object.values(t.svc.store.state.captures).filter((x) =>
      JSON.stringify(x.request).includes('refused-walk.mp4'),
    );
    expect(registered.map((x) => x.request)).toEqual([
      expect.objectContaining({
        structure: structure.id,
        design: structure.designs[0]!.id,
        type: 'exterior',
        captureDateTime: '2026-11-22T09:00:00+01:00',
      }),
    ]);
    await expect(
      h['capture:queue.edit']({
        captureRow: c.queueView().captures[0]!.id,
        structure: structure.id,
        type: 'interior',
        capturedAt: '2026-11-22T09:00:00Z',
      }),
    ).rejects.toThrow(/registered already/);

    // One lens of a dual-lens pair taken off the queue: its capture stays with the other file.
    const lenses = ['VID_20261122_080000_00_001.insv', 'VID_20261122_080000_10_001.insv'].map((n) => join(t.work, n));
    for (const l of lenses) writeFileSync(l, randomBytes(64 * 1024));
    await t.svc.admin('POST', '/faults', {
      target: 'gateway',
      operation: 'add-capture',
      action: { type: 'latency', ms: 1500 },
    });
    await h['capture:captures.register']([
      { paths: lenses, structure: structure.id, type: 'interior', capturedAt: '2026-11-22T08:00:00Z' },
    ]);
    // Registration runs in the background: the slow answer must be the pair's before the next rule
    // is posted, or the second pair's add-capture could take it and the pair the 503 (in doubt).
    await vi.waitFor(
      async () => {
        const rules = ((await (await t.svc.admin('GET', '/faults')).json()) as { rules: { seen: number }[] }).rules;
        expect(rules[0]?.seen).toBe(1);
      },
      { timeout: 10_000 },
    );
    // Before registration the request lists both lenses: one alone cannot leave yet.
    const unregistered = join(t.work, 'VID_20261122_090000_00_002.insv');
    for (const l of [unregistered, unregistered.replace('_00_', '_10_')]) writeFileSync(l, randomBytes(1024));
    await t.svc.admin('POST', '/faults', {
      target: 'gateway',
      operation: 'add-capture',
      action: { type: 'status', status: 503 },
    });
    const queuedRows = (
      await h['capture:captures.register']([
        {
          paths: [unregistered, unregistered.replace('_00_', '_10_')],
          structure: structure.id,
          type: 'interior',
          capturedAt: '2026-11-22T09:00:00Z',
        },
      ])
    ).queued;
    const waitingLens = c.queueView().files.find((f) => f.captureRow === queuedRows[0])!;
    expect(waitingLens.state).toBe('waiting');
    await expect(h['capture:queue.removeFile']({ fileId: waitingLens.id })).rejects.toThrow(
      /cannot be removed alone while its capture/,
    );
    expect(c.queueView().files.filter((f) => f.captureRow === queuedRows[0])).toHaveLength(2);
    await t.svc.admin('DELETE', '/faults');
    await h['capture:queue.remove']({ captureRow: queuedRows[0]! });
    // Registration runs in the background: once the pair's capture is registered, one lens may leave.
    const pairFiles = () => c.queueView().files.filter((f) => f.fileName.startsWith('VID_20261122_080000'));
    await vi.waitFor(() => expect(pairFiles().map((f) => f.state)).not.toContain('waiting'), { timeout: 10_000 });
    const pair = pairFiles();
    expect(pair).toHaveLength(2);
    await h['capture:queue.removeFile']({ fileId: pair[1]!.id });
    await vi.waitFor(
      () =>
        expect(
          c
            .queueView()
            .files.filter((f) => f.fileName.startsWith('VID_20261122_080000'))
            .map((f) => f.state),
        ).toEqual(['completed']),
      { timeout: 15_000 },
    );
    expect(c.queueView().files.map((f) => f.fileName)).not.toContain(pair[1]!.fileName);

    expect(await h['capture:queue.clearCompleted']()).toEqual({ captures: 2 });
    expect(c.queueView()).toMatchObject({ captures: [], files: [], totals: { files: 0, captures: 0 } });
    const log = await h['capture:activity.list']({});
    expect(log.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['rejected', 'queued', 'registered', 'removed', 'capture-completed']),
    );
  });

  it('sends an office entry recorded offline once the service is back, without the Progress screen', async () => {
    const { c, h } = await core('outbox');
    await t.svc.admin('POST', '/faults', {
      target: 'progress',
      operation: 'progress',
      action: { type: 'status', status: 503 },
      times: 0,
    });
    const details = `Recorded offline at ${Date.now()}: level 3 slab poured.`;
    const r = await h['capture:progress.create']({ date: '2026-11-20', status: 'Completed', details });
    expect(r).toMatchObject({ entry: null, queued: { details } });
    await t.svc.admin('DELETE', '/faults');
    await c.sendOutbox(); // what the app's one-minute timer runs
    expect(t.svc.store.state.progress.filter((e) => e.details === details)).toHaveLength(1);
    expect((await h['capture:progress.list']({ date: '2026-11-20' })).outbox).toEqual([]);
  });

  it('offers the local test service only where it can be loaded, and uses only what it announces', async () => {
    const map = new Map<string, unknown>();
    const base = {
      dataDir: join(t.work, 'offered'),
      store: { get: (k: string) => map.get(k), set: (k: string, v: unknown) => map.set(k, v) },
      secrets: { available: () => true, encrypt: (s: string) => s, decrypt: (s: string) => s },
      emit: () => {},
      pickFiles: async () => [],
    };
    // A checkout: offered, and started with nothing but its ready info (no state to reach into).
    const checkout = new AppCore({
      ...base,
      startLocalService: async () => ({ info: t.svc.info, close: async () => {} }),
    });
    t.keep(checkout);
    await checkout.start();
    expect(await checkout.handlers()['capture:settings.get']()).toMatchObject({
      localServiceAvailable: true,
      configured: false,
    });
    const local = await checkout.handlers()['capture:settings.useLocalService']();
    expect(local).toMatchObject({ mode: 'local', configured: true, localServiceAvailable: true });
    const seeded = t.svc.store.state.projects.find((p) => p.id === t.svc.info.projectId)!.structures;
    expect(local.structures.map((st) => [st.name, st.designs.map((d) => d.name)])).toEqual(
      seeded.map((st) => [st.name, st.designs.map((d) => d.name)]),
    );
    await checkout.close();

    // The packaged app on the same stored settings: not offered, so not configured either.
    const packaged = new AppCore(base);
    t.keep(packaged);
    await packaged.start();
    expect(await packaged.handlers()['capture:settings.get']()).toMatchObject({
      mode: 'local',
      localServiceAvailable: false,
      configured: false,
    });
    await expect(packaged.handlers()['capture:settings.useLocalService']()).rejects.toThrow(
      /not part of this installation/,
    );
    await expect(packaged.handlers()['capture:queue.list']()).resolves.toMatchObject({
      captures: [],
      files: [],
      blocked: null,
    });
  });

  it('remembers where most captures of the last card went, for this project, to offer it next time', async () => {
    const { c, h } = await core('last-placement');
    expect(await h['capture:captures.lastPlacement']()).toBeNull();
    const [a, b] = c.settings.view().structures;
    if (!a || !b) throw new Error('the local service seeds at least two structures');
    const files = ['one', 'two', 'three'].map((n) => {
      const path = join(t.work, `${n}-placed.mp4`);
      writeFileSync(path, randomBytes(1000));
      return path;
    });
    const form = (path: string, s: NamedStructure) => ({
      paths: [path],
      structure: s.id,
      design: s.designs[0]!.id,
      type: 'exterior' as const,
      capturedAt: '2026-11-22T08:00:00+01:00',
    });
    await h['capture:captures.register']([form(files[0]!, a), form(files[1]!, b), form(files[2]!, b)]);
    expect(await h['capture:captures.lastPlacement']()).toEqual({
      structure: b.id,
      design: b.designs[0]!.id,
      type: 'exterior',
    });
    // Kept per project: another project's next card is offered nothing.
    c.settings.rememberPlacement('another-project', { structure: a.id, type: 'interior' });
    expect(await h['capture:captures.lastPlacement']()).toMatchObject({ structure: b.id });
  });

  it('warns about designs changed since the last export, and records a new export', async () => {
    const { h } = await core('designs');
    const design = t.svc.store.state.projects[0]!.structures[2]!.designs[0]!;
    await t.svc.admin('POST', `/projects/${t.svc.info.projectId}/designs/${design.id}/touch`);
    expect(await h['capture:designs.check']()).toMatchObject({ stale: true, lastExport: null });
    expect((await h['capture:designs.export']()).message).toMatch(/being generated/);
    expect(await h['capture:designs.check']()).toMatchObject({
      stale: false,
      lastExport: { designsUpdatedAt: design.updatedAt },
    });
  });
});
