import { Database } from '../testing/queue-backdoors.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FaultRuleInput, TestService } from '../../e2e/service/testing.js';
import { startTestService } from '../../e2e/service/testing.js';
import { HttpStatusError } from '../api/errors.js';
import { ProgressRecordsClient } from '../api/progress-records.js';
import { OfficeRecords, lostAnswerMatch } from './office.js';
import { RecordsStore } from './records-store.js';

// The office workspace's cache and outbox against the local service's progress interface, with
// its `progress` faults standing in for an unreachable service.

let svc: TestService;
let dir: string;
let store: RecordsStore;
const file = () => join(dir, 'records.db');
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'records-cache-'));
  store = RecordsStore.open(file());
});
afterEach(async () => {
  await svc.admin('DELETE', '/faults');
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The office records over `store`, with a client that gives up fast (one quick retry, 2 s timeout). */
function office(apiKey = svc.info.apiKey, s = store): OfficeRecords {
  const config = { baseUrl: svc.info.progressBaseUrl, apiKey, projectId: svc.info.projectId, ...svc.info.account };
  return new OfficeRecords(s, () => ({
    client: new ProgressRecordsClient(config, { retry: { retries: 1, delayMs: () => 10 }, timeoutMs: 2000 }),
    scope: 'test',
  }));
}
const fault = (rule: Omit<FaultRuleInput, 'target'>) => svc.admin('POST', '/faults', { target: 'progress', ...rule });
/** The rows of records.db's outbox, read with a connection of its own. */
function outboxRows(): { date: string; status: string; details: string; attempts: number; state: string }[] {
  const db = new Database(file(), { readonly: true });
  try {
    return db.prepare('SELECT date, status, details, attempts, state FROM outbox ORDER BY id').all() as never;
  } finally {
    db.close();
  }
}
const held = (details: string) => svc.store.state.progress.filter((p) => p.details === details);

describe('the cache', () => {
  it('keeps the last entries read and answers them, offline and with their as-of time, while the service fails', async () => {
    const o = office();
    const online = await o.listProgress();
    expect(online.offline).toBe(false);
    expect(online.entries).toHaveLength(svc.store.state.progress.length);
    expect(Date.parse(online.asOf)).toBeGreaterThan(Date.now() - 60_000);

    await fault({ operation: 'progress', action: { type: 'status', status: 503 }, times: 0 });
    const away = await o.listProgress();
    expect(away).toMatchObject({ offline: true, asOf: online.asOf, entries: online.entries, outbox: [] });
    expect(away.offlineReason).toMatch(/503/);
    // A cached entry opens by id too.
    expect(await o.getProgress(online.entries[3]!.id)).toEqual(online.entries[3]);

    // A fresh start of the app on the same records.db still has them.
    store.close();
    store = RecordsStore.open(file());
    expect((await office().listProgress()).entries).toEqual(online.entries);
  });

  it("keeps categories and a structure's assets, and a connection reset makes them offline too", async () => {
    const o = office();
    const cats = await o.categories();
    const assets = await o.assets(svc.info.structures[0]!, 'Curtain Wall');
    expect(cats.value.map((c) => c.name)).toEqual(svc.store.state.assetCategories.map((c) => c.name));
    expect(assets.value).toHaveLength(
      svc.store.state.assets.filter((a) => a.structure === svc.info.structures[0] && a.category === cats.value[0]!.id)
        .length,
    );
    await fault({ action: { type: 'reset' }, times: 0 });
    expect(await o.categories()).toMatchObject({ offline: true, value: cats.value, asOf: cats.asOf });
    expect(await o.assets(svc.info.structures[0]!, 'Curtain Wall')).toMatchObject({
      offline: true,
      value: assets.value,
    });
    // Never read: nothing to fall back on, so the error is the network's.
    await expect(o.assets(svc.info.structures[1]!, 'Curtain Wall')).rejects.toThrow(/No answer from the service/);
  });

  it('shows a 4xx as the error it is, not as offline', async () => {
    await office().listProgress();
    const refused = office('ck_not-the-key').listProgress();
    await expect(refused).rejects.toBeInstanceOf(HttpStatusError);
    await expect(refused).rejects.toMatchObject({ status: 401 });
  });
});

describe('the outbox', () => {
  it('keeps an entry recorded while the service cannot be reached, across a restart, and sends it once when it is back', async () => {
    await office().listProgress();
    await fault({ operation: 'progress', action: { type: 'reset' }, times: 0 });
    const details = `Tower A level 5 anchors ${Date.now()}`;
    const r = await office().createProgress({ date: '2026-11-20', status: 'Completed', details });
    expect(r.entry).toBeNull();
    expect(r.queued).toMatchObject({ date: '2026-11-20', status: 'Completed', details, state: 'waiting' });
    // Its date could not be read, so nothing was sent (attempts 0).
    expect(outboxRows()).toEqual([{ date: '2026-11-20', status: 'Completed', details, attempts: 0, state: 'waiting' }]);
    expect(held(details)).toEqual([]);
    const offline = await office().listProgress();
    expect(offline.offline).toBe(true);
    expect(offline.outbox.map((i) => i.details)).toEqual([details]);

    store.close();
    store = RecordsStore.open(file());
    await svc.admin('DELETE', '/faults');
    // Two refreshes at once (a timer and a click) still send it once.
    const o = office();
    const [a, b] = await Promise.all([o.listProgress(), o.listProgress()]);
    expect(held(details)).toEqual([
      { id: expect.any(String), projectId: svc.info.projectId, date: '2026-11-20', status: 'Completed', details },
    ]);
    expect(outboxRows()).toEqual([]);
    for (const list of [a, b]) {
      expect(list.offline).toBe(false);
      expect(list.outbox).toEqual([]);
      expect(list.entries.filter((e) => e.details === details)).toHaveLength(1);
    }
  });

  it('records a create whose answer was dropped once: the outbox looks it up before sending again', async () => {
    // The entry is stored but its answer lost, and the client's own look-up fails too (after the
    // read of its date before the send): it waits.
    await fault({ operation: 'progress', method: 'POST', action: { type: 'dropResponse', afterMs: 0 } });
    await fault({ operation: 'progress', method: 'GET', action: { type: 'reset' }, times: 0, skip: 1 });
    const details = `Tower B duct labels ${Date.now()}`;
    const r = await office().createProgress({ date: '2026-11-19', status: 'In Progress', details });
    expect(r.queued?.details).toBe(details);
    expect(held(details)).toHaveLength(1);

    await svc.admin('DELETE', '/faults');
    const sent = await office().sendOutbox();
    expect(sent).toEqual([{ id: held(details)[0]!.id, date: '2026-11-19', status: 'In Progress', details }]);
    expect(held(details)).toHaveLength(1);
    expect(outboxRows()).toEqual([]);
  });

  it('keeps an entry the service refuses (400) as refused, with its message, until the person discards it', async () => {
    // Both sends of the client's create fail (it looks between them): the entry waits.
    await fault({ operation: 'progress', method: 'POST', action: { type: 'status', status: 502 }, times: 2 });
    const r = await office().createProgress({ date: '2026-11-18', status: 'Done', details: 'not a status of §2' });
    expect(r.queued).not.toBeNull();
    const list = await office().listProgress();
    expect(list.offline).toBe(false);
    expect(list.outbox).toEqual([
      expect.objectContaining({ state: 'refused', error: expect.stringMatching(/refused the request: status/) }),
    ]);
    expect(outboxRows()).toEqual([
      { date: '2026-11-18', status: 'Done', details: 'not a status of §2', attempts: 2, state: 'refused' },
    ]);
    expect(await office().discard(r.queued!.id)).toBe(true);
    expect(outboxRows()).toEqual([]);
  });

  it('names the field a refusal is about, and sends the entry again once it is corrected', async () => {
    await fault({ operation: 'progress', method: 'POST', action: { type: 'status', status: 502 }, times: 2 });
    const r = await office().createProgress({
      date: '2026-11-17',
      status: 'Done',
      details: 'Tower C slab edge protection',
    });
    const refused = (await office().listProgress()).outbox;
    expect(refused).toEqual([expect.objectContaining({ id: r.queued!.id, state: 'refused', field: 'status' })]);
    // Corrected: back in the outbox as waiting, sent at once and recorded once.
    const again = await office().revise(r.queued!.id, {
      date: '2026-11-17',
      status: 'Completed',
      details: 'Tower C slab edge protection, north side',
    });
    expect(again).toEqual({
      entry: {
        id: expect.any(String),
        date: '2026-11-17',
        status: 'Completed',
        details: 'Tower C slab edge protection, north side',
      },
      item: null,
    });
    expect(held('Tower C slab edge protection, north side')).toHaveLength(1);
    expect(outboxRows()).toEqual([]);
  });

  it('keeps a corrected entry waiting when the service cannot be reached, and refuses to revise one that is not refused', async () => {
    await fault({
      operation: 'progress',
      method: 'POST',
      action: { type: 'json', status: 200, body: { success: false, message: 'details: must name a structure' } },
    });
    const r = await office()
      .createProgress({ date: '2026-11-16', status: 'Completed', details: 'level 3' })
      .catch((e: unknown) => e);
    expect(r).toMatchObject({ name: 'ProgressRefusedError' });
    await fault({ operation: 'progress', method: 'POST', action: { type: 'status', status: 502 }, times: 2 });
    const q = await office().createProgress({ date: '2026-11-16', status: 'Completed', details: 'level 3' });
    await fault({
      operation: 'progress',
      method: 'POST',
      action: { type: 'json', status: 201, body: { status: false, message: 'details: must name a structure' } },
    });
    const [item] = (await office().listProgress()).outbox;
    expect(item).toMatchObject({
      state: 'refused',
      field: 'details',
      error: expect.stringContaining('details: must name a structure'),
    });
    // Its date is read, its sends get no answer: it waits, sent once.
    await fault({ operation: 'progress', method: 'POST', action: { type: 'reset' }, times: 0 });
    const waiting = await office().revise(q.queued!.id, {
      date: '2026-11-16',
      status: 'Completed',
      details: 'Tower A level 3',
    });
    expect(waiting).toEqual({
      entry: null,
      item: expect.objectContaining({ state: 'waiting', details: 'Tower A level 3', field: null }),
    });
    expect(outboxRows()).toEqual([
      { date: '2026-11-16', status: 'Completed', details: 'Tower A level 3', attempts: 1, state: 'waiting' },
    ]);
    // It was sent once and may be recorded with its answer lost: it cannot be corrected blind.
    await fault({ operation: 'progress', method: 'GET', action: { type: 'reset' }, times: 0 });
    await expect(
      office().revise(q.queued!.id, { date: '2026-11-16', status: 'Completed', details: 'x' }),
    ).rejects.toThrow(/may have reached the progress service already .*corrected once the service answers/);
    expect(outboxRows()).toEqual([
      { date: '2026-11-16', status: 'Completed', details: 'Tower A level 3', attempts: 1, state: 'waiting' },
    ]);
    await expect(office().revise(9999, { date: '2026-11-16', status: 'Completed', details: 'x' })).rejects.toThrow(
      'is no longer waiting to be sent',
    );
  });

  it('answers a 400 of an entry sent online as the error it is, and keeps nothing', async () => {
    await expect(
      office().createProgress({ date: '2026-02-30', status: 'Completed', details: 'x' }),
    ).rejects.toMatchObject({ status: 400 });
    expect(outboxRows()).toEqual([]);
  });

  // The service's refusals of one entry (§7) each keep that entry refused on its own; the read of
  // the list, a colleague's entry made meanwhile and the entries after it are not held up.
  for (const status of [403, 404, 409, 422]) {
    it(`keeps an entry answered ${status} refused on its own, sends the next, and still reads the list`, async () => {
      await office().listProgress();
      await fault({ operation: 'progress', method: 'POST', action: { type: 'status', status: 502 }, times: 0 });
      const first = await office().createProgress({
        date: '2026-11-12',
        status: 'Completed',
        details: `refused ${status} ${Date.now()}`,
      });
      const second = await office().createProgress({
        date: '2026-11-13',
        status: 'Completed',
        details: `goes out ${status} ${Date.now()}`,
      });
      expect([first.queued?.state, second.queued?.state]).toEqual(['waiting', 'waiting']);
      // A colleague records an entry on another computer.
      const colleague = `colleague ${status} ${Date.now()}`;
      svc.store.state.progress.push({
        id: `col-${status}`,
        projectId: svc.info.projectId,
        date: '2026-11-14',
        status: 'In Progress',
        details: colleague,
      });
      await svc.admin('DELETE', '/faults');
      await fault({
        operation: 'progress',
        method: 'POST',
        action: { type: 'json', status, body: { success: false, message: 'details too long' } },
        times: 1,
      });
      const list = await office().listProgress();
      expect(list.offline).toBe(false);
      expect(list.entries.map((e) => e.details)).toContain(colleague);
      expect(list.entries.map((e) => e.details)).toContain(second.queued!.details);
      expect(list.outbox).toEqual([
        expect.objectContaining({
          id: first.queued!.id,
          state: 'refused',
          error: expect.stringContaining('details too long'),
        }),
      ]);
      // An entry kept refused can be given up, and a 403's sentence says so.
      if (status === 403)
        expect(list.outbox[0]!.error).toMatch(/ask an administrator .* for access, or discard the entry\.$/);
      expect(held(second.queued!.details)).toHaveLength(1);
      expect(held(first.queued!.details)).toEqual([]);
      // Refused, it can be corrected and sent, or discarded.
      const fixed = await office().revise(first.queued!.id, {
        date: '2026-11-12',
        status: 'Completed',
        details: `short ${status}`,
      });
      expect(fixed.entry?.details).toBe(`short ${status}`);
      expect(outboxRows()).toEqual([]);
    });
  }

  it('keeps an entry waiting, with why, while the service answers 429, and still reads the list', async () => {
    await office().listProgress();
    await fault({ operation: 'progress', method: 'POST', action: { type: 'status', status: 502 }, times: 2 });
    const q = await office().createProgress({
      date: '2026-11-11',
      status: 'In Progress',
      details: `slow down ${Date.now()}`,
    });
    await svc.admin('DELETE', '/faults');
    await fault({ operation: 'progress', method: 'POST', action: { type: 'status', status: 429 }, times: 0 });
    const list = await office().listProgress();
    expect(list.offline).toBe(false);
    expect(list.entries.length).toBeGreaterThan(0);
    expect(list.outbox).toEqual([
      expect.objectContaining({ id: q.queued!.id, state: 'waiting', error: expect.stringMatching(/asks to wait/) }),
    ]);
    // A waiting entry can be discarded too.
    expect(await office().discard(q.queued!.id)).toBe(true);
    expect(outboxRows()).toEqual([]);
  });

  it('corrects a waiting entry never sent, and finds one sent before already recorded instead of changing it', async () => {
    // Never sent (attempts 0 after a revise is the same as new): corrected at once.
    await fault({ operation: 'progress', method: 'POST', action: { type: 'dropResponse', afterMs: 0 } });
    await fault({ operation: 'progress', method: 'GET', action: { type: 'reset' }, times: 0, skip: 1 });
    const details = `lost answer ${Date.now()}`;
    const q = await office().createProgress({ date: '2026-11-10', status: 'Completed', details });
    expect(held(details)).toHaveLength(1);
    await svc.admin('DELETE', '/faults');
    await fault({ operation: 'progress', method: 'POST', action: { type: 'reset' }, times: 0 });
    await expect(
      office().revise(q.queued!.id, { date: '2026-11-10', status: 'Completed', details: `${details}, corrected` }),
    ).rejects.toThrow(`This entry was recorded already, as entry ${held(details)[0]!.id} of 2026-11-10`);
    expect(outboxRows()).toEqual([]);
    expect(held(`${details}, corrected`)).toEqual([]);
  });
});

// The service keeps nothing of the client's on an entry (§2 Progress: id, projectId, date, status,
// details), so after a lost answer an entry is found by its whole content, and only one that was
// not there before its first send is taken as its own (docs/decisions/0027-progress-lost-answer-match.md).
describe('a lost answer', () => {
  const day = '2026-11-09';
  const colleagueEntry = (details: string, id: string) =>
    svc.store.state.progress.push({ id, projectId: svc.info.projectId, date: day, status: 'Completed', details });

  it('records two identical entries made offline on one day, both, once each', async () => {
    const details = `Inspection done ${Date.now()}`;
    await fault({ operation: 'progress', action: { type: 'reset' }, times: 0 });
    const first = await office().createProgress({ date: day, status: 'Completed', details });
    const second = await office().createProgress({ date: day, status: 'Completed', details });
    expect([first.queued?.state, second.queued?.state]).toEqual(['waiting', 'waiting']);
    expect(held(details)).toEqual([]);
    await svc.admin('DELETE', '/faults');
    const sent = await office().sendOutbox();
    expect(held(details)).toHaveLength(2);
    expect(new Set(sent.map((e) => e.id))).toEqual(new Set(held(details).map((e) => e.id)));
    expect(outboxRows()).toEqual([]);
  });

  it('records a second identical entry whose send failed, instead of taking the first as its answer', async () => {
    const details = `Inspection done ${Date.now()}`;
    const first = await office().createProgress({ date: day, status: 'Completed', details });
    expect(held(details)).toHaveLength(1);
    // The second's first send is answered 502 (nothing recorded); the client looks, then sends again.
    await fault({ operation: 'progress', method: 'POST', action: { type: 'status', status: 502 }, times: 1 });
    const second = await office().createProgress({ date: day, status: 'Completed', details });
    expect(held(details)).toHaveLength(2);
    expect(second.entry?.id).toBe(held(details)[1]!.id);
    expect(second.entry?.id).not.toBe(first.entry?.id);
    expect(outboxRows()).toEqual([]);
  });

  it('records a second identical entry that waited with a failed send, once the service is back', async () => {
    const details = `Inspection done ${Date.now()}`;
    await office().createProgress({ date: day, status: 'Completed', details });
    // Both sends of the second are answered 502: it waits, sent before (attempts 2).
    await fault({ operation: 'progress', method: 'POST', action: { type: 'status', status: 502 }, times: 2 });
    const second = await office().createProgress({ date: day, status: 'Completed', details });
    expect(second.queued).not.toBeNull();
    expect(outboxRows()).toEqual([{ date: day, status: 'Completed', details, attempts: 1, state: 'waiting' }]);
    const sent = await office().sendOutbox();
    expect(held(details)).toHaveLength(2);
    expect(sent.map((e) => e.id)).toEqual([held(details)[1]!.id]);
    expect(outboxRows()).toEqual([]);
  });

  it('takes the entry recorded with its answer lost as its own, not an identical one recorded before, and sends nothing again', async () => {
    const details = `Inspection done ${Date.now()}`;
    const earlier = await office().createProgress({ date: day, status: 'Completed', details });
    await fault({ operation: 'progress', method: 'POST', action: { type: 'dropResponse', afterMs: 0 } });
    await fault({ operation: 'progress', method: 'GET', action: { type: 'reset' }, times: 0, skip: 1 });
    const r = await office().createProgress({ date: day, status: 'Completed', details });
    expect(r.queued).not.toBeNull();
    expect(held(details)).toHaveLength(2);
    const ours = held(details)[1]!.id;
    await svc.admin('DELETE', '/faults');
    const sent = await office().sendOutbox();
    expect(sent.map((e) => e.id)).toEqual([ours]);
    expect(sent[0]!.id).not.toBe(earlier.entry!.id);
    expect(held(details)).toHaveLength(2);
    expect(outboxRows()).toEqual([]);
  });

  it('takes its own entry, not an identical one recorded before, when the answer is lost and the look-up made at once', async () => {
    const details = `Inspection done ${Date.now()}`;
    const earlier = await office().createProgress({ date: day, status: 'Completed', details });
    await fault({ operation: 'progress', method: 'POST', action: { type: 'dropResponse', afterMs: 0 } });
    const r = await office().createProgress({ date: day, status: 'Completed', details });
    expect(held(details)).toHaveLength(2);
    expect(r.entry?.id).toBe(held(details)[1]!.id);
    expect(r.entry?.id).not.toBe(earlier.entry!.id);
    expect(outboxRows()).toEqual([]);
  });

  it("counts a colleague's identical entry recorded while the answer was lost beside its own: two entries, none sent again", async () => {
    const details = `Inspection done ${Date.now()}`;
    await fault({ operation: 'progress', method: 'POST', action: { type: 'dropResponse', afterMs: 0 } });
    await fault({ operation: 'progress', method: 'GET', action: { type: 'reset' }, times: 0, skip: 1 });
    await office().createProgress({ date: day, status: 'Completed', details });
    expect(held(details)).toHaveLength(1);
    colleagueEntry(details, `col-${Date.now()}`);
    await svc.admin('DELETE', '/faults');
    const sent = await office().sendOutbox();
    expect(held(details)).toHaveLength(2);
    expect(held(details).map((e) => e.id)).toContain(sent[0]!.id);
    expect(outboxRows()).toEqual([]);
  });

  it("takes a colleague's identical entry made after a send that never arrived as its own (the one case the content cannot tell apart)", async () => {
    const details = `Inspection done ${Date.now()}`;
    // Nothing recorded: both sends answered 502, then the service is unreachable.
    await fault({ operation: 'progress', method: 'POST', action: { type: 'status', status: 502 }, times: 2 });
    await office().createProgress({ date: day, status: 'Completed', details });
    expect(held(details)).toEqual([]);
    colleagueEntry(details, `col-${Date.now()}`);
    await svc.admin('DELETE', '/faults');
    const sent = await office().sendOutbox();
    expect(sent.map((e) => e.id)).toEqual([held(details)[0]!.id]);
    expect(held(details)).toHaveLength(1);
    expect(outboxRows()).toEqual([]);
  });
});

describe('lostAnswerMatch', () => {
  const same = { date: '2026-11-09', status: 'Completed', details: 'Inspection done' };
  const entry = (id: string, details = same.details) => ({ id, projectId: 'p', ...same, details });
  const row = (id: number, knownIds: string[] | null) => ({
    id,
    ...same,
    queuedAt: '2026-11-09T08:00:00.000Z',
    attempts: 1,
    state: 'waiting' as const,
    error: null,
    knownIds,
  });

  it('takes only an entry of the whole same content that was not known before, preferring the one a later send saw', () => {
    const first = row(1, ['old']);
    const second = row(2, ['old', 'a']); // sent after entry a was recorded
    const list = [entry('old'), entry('b'), entry('a'), entry('c', 'Inspection done.')];
    expect(lostAnswerMatch(list, first, [first, second])?.id).toBe('a');
    expect(lostAnswerMatch(list, second, [first, second])?.id).toBe('b');
    expect(lostAnswerMatch([entry('old'), entry('a')], second, [second])).toBeUndefined();
    // A row sent before known ids were kept takes any entry of the same content.
    expect(lostAnswerMatch([entry('old')], row(3, null), [])?.id).toBe('old');
  });
});
