import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../testing.js';
import { startTestService } from '../testing.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

const call = (method: string, path: string, opts: { key?: string | null; body?: unknown } = {}) => {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.key !== null) headers['x-api-key'] = opts.key ?? svc.info.apiKey;
  return fetch(`${svc.info.progressBaseUrl}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
};

describe('sign-in (progress-records-interface.md §4–5)', () => {
  it('answers 201 with the User, its token and refresh token, without needing the API key', async () => {
    const res = await call('POST', '/v1/users/signin', { key: null, body: svc.info.account });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { success: boolean; result: Record<string, unknown> };
    expect(body.success).toBe(true);
    expect(Object.keys(body.result).sort()).toEqual(
      [
        '_id',
        'firstName',
        'lastName',
        'fullName',
        'email',
        'contact',
        'dob',
        'verified',
        'createdAt',
        'updatedAt',
        '__v',
        'avatar',
        'isSupportUser',
        'unReadNotifications',
        'status',
        'loginType',
        'resetPasswordTimestamps',
        'verificationTimestamps',
        'userPreference',
        'age',
        'canResendVerification',
        'canResetPassword',
        'provider',
        'token',
        'refreshToken',
      ].sort(),
    );
    expect(body.result.email).toBe(svc.info.account.email);
    expect(body.result.contact).toEqual({ code: expect.any(String), number: expect.any(Number) });
    expect(body.result.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('answers "Invalid credentials" in the error shape for a wrong password', async () => {
    const res = await call('POST', '/v1/users/signin', { key: null, body: { ...svc.info.account, password: 'nope' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ status: false, message: 'Invalid credentials' });
  });
});

describe('progress entries', () => {
  it('refuses every call without a valid x-api-key with 401', async () => {
    for (const [m, p] of [
      ['GET', `/progress?projectId=${svc.info.projectId}`],
      ['POST', '/progress'],
      ['GET', '/progress/abc'],
      ['GET', `/api/external-asset-categories?project=${svc.info.projectId}`],
      ['GET', '/api/external-assets?structure=a&category=b'],
    ] as const) {
      const res = await call(m, p, { key: null });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ status: false, message: 'Unauthorized' });
      expect((await call(m, p, { key: 'ck_wrong' })).status).toBe(401);
    }
  });

  it('creates an entry (201, with id), lists it by project and date, and reads it by id', async () => {
    // The latest seeded day, so that the date filter has seeded entries to leave in and out.
    const date = svc.store.state.progress
      .map((p) => p.date)
      .sort()
      .at(-1)!;
    const entry = { projectId: svc.info.projectId, date, status: 'In Progress', details: 'Level 3 drywall taping 40%' };
    const created = await call('POST', '/progress', { body: entry });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string };
    expect(body).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/), ...entry });

    const list = (await (await call('GET', `/progress?projectId=${svc.info.projectId}`)).json()) as { date: string }[];
    expect(list).toHaveLength(svc.store.state.progress.filter((p) => p.projectId === svc.info.projectId).length);
    expect(list.map((e) => e.date)).toEqual([...list.map((e) => e.date)].sort());
    const sameDay = (await (
      await call('GET', `/progress?projectId=${svc.info.projectId}&date=${date}`)
    ).json()) as unknown[];
    expect(sameDay).toEqual(svc.store.state.progress.filter((p) => p.date === date));
    expect(sameDay.length).toBeGreaterThan(1);
    expect(sameDay).toContainEqual(body);
    expect(await (await call('GET', `/progress/${body.id}`)).json()).toEqual(body);
  });

  it('answers 400, 404 in the error shape', async () => {
    const bad = async (res: Response, status: number, message: RegExp) => {
      expect(res.status).toBe(status);
      const body = (await res.json()) as { status: boolean; message: string };
      expect(body.status).toBe(false);
      expect(body.message).toMatch(message);
    };
    await bad(await call('GET', '/progress'), 400, /projectId is required/);
    await bad(await call('GET', `/progress?projectId=${svc.info.projectId}&date=21-11-2026`), 400, /YYYY-MM-DD/);
    await bad(await call('GET', '/progress/ffffffffffffffffffffffff'), 404, /Progress not found/);
    await bad(
      await call('POST', '/progress', {
        body: { projectId: svc.info.projectId, date: '2026-02-30', status: 'Completed', details: '' },
      }),
      400,
      /date/,
    );
    await bad(
      await call('POST', '/progress', {
        body: { projectId: svc.info.projectId, date: '2026-02-03', status: 'Done', details: '' },
      }),
      400,
      /status/,
    );
    await bad(
      await call('POST', '/progress', {
        body: { projectId: 'f'.repeat(24), date: '2026-02-03', status: 'Completed', details: '' },
      }),
      404,
      /Project not found/,
    );
  });

  it('answers 500 in the error shape when the service fails', async () => {
    await svc.admin('POST', '/faults', {
      target: 'progress',
      operation: 'progress',
      action: { type: 'status', status: 500 },
    });
    const res = await call('GET', `/progress?projectId=${svc.info.projectId}`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ status: false, message: 'Internal Server Error' });
    expect((await call('GET', `/progress?projectId=${svc.info.projectId}`)).status).toBe(200);
  });
});

describe('seed data at a realistic size', () => {
  const DAY = 86_400_000;
  const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);

  it('has entries on most working days of the 90 days before it was made, none later', () => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const working = Array.from({ length: 90 }, (_, i) => today - (i + 1) * DAY)
      .filter((d) => ![0, 6].includes(new Date(d).getUTCDay()))
      .map(ymd);
    const days = new Set(svc.store.state.progress.map((p) => p.date));
    expect(working.filter((d) => days.has(d)).length / working.length).toBeGreaterThan(0.75);
    expect([...days].every((d) => d >= ymd(today - 90 * DAY) && d < ymd(today))).toBe(true);
    expect(new Set(svc.store.state.progress.map((p) => p.status))).toEqual(new Set(['In Progress', 'Completed']));
  });

  it('has categories of 3–6 stages in sequence with distinct colours, and 150–300 assets per structure', () => {
    const cats = svc.store.state.assetCategories as { stages: { sequence: number; color: string }[] }[];
    expect(cats.length).toBeGreaterThanOrEqual(3);
    for (const c of cats) {
      expect(c.stages.length).toBeGreaterThanOrEqual(3);
      expect(c.stages.length).toBeLessThanOrEqual(6);
      expect(c.stages.map((s) => s.sequence)).toEqual(c.stages.map((_, i) => i + 1));
    }
    const colours = cats.flatMap((c) => c.stages.map((s) => s.color));
    expect(new Set(colours).size).toBe(colours.length);
    const assets = svc.store.state.assets as {
      structure: string;
      doNotTrack: boolean;
      stages: { percentage: number; date: string }[];
    }[];
    for (const s of svc.info.structures) {
      const mine = assets.filter((a) => a.structure === s);
      expect(mine.length).toBeGreaterThanOrEqual(150);
      expect(mine.length).toBeLessThanOrEqual(300);
      expect(mine.some((a) => a.doNotTrack)).toBe(true);
    }
    // Stage dates spread over months, and work at every stage of progress.
    const months = new Set(
      assets.flatMap((a) => a.stages.filter((st) => st.percentage > 0).map((st) => st.date.slice(0, 7))),
    );
    expect(months.size).toBeGreaterThanOrEqual(3);
    const pcts = assets.flatMap((a) => a.stages.map((st) => st.percentage));
    expect(pcts).toContain(0);
    expect(pcts).toContain(100);
    expect(pcts.some((p) => p > 0 && p < 100)).toBe(true);
  });
});

describe('external asset categories and assets', () => {
  it('lists the categories of a project with their stages', async () => {
    const res = await call('GET', `/api/external-asset-categories?project=${svc.info.projectId}`);
    expect(res.status).toBe(200);
    const { success, result } = (await res.json()) as { success: boolean; result: Record<string, unknown>[] };
    expect(success).toBe(true);
    expect(result).toEqual(svc.store.state.assetCategories);
    expect(result.map((c) => c.name)).toContain('Curtain Wall');
    const stage = (result[0]!.stages as Record<string, unknown>[])[0]!;
    expect(Object.keys(stage).sort()).toEqual([
      '_id',
      'color',
      'measurement',
      'metrics',
      'name',
      'predecessors',
      'sequence',
      'uom',
    ]);
    expect(stage.metrics).toEqual({ structureId: expect.any(Number) });
    expect((await call('GET', '/api/external-asset-categories')).status).toBe(400);
  });

  it('lists the polyline assets of a structure in a category given by name or id', async () => {
    const towerA = svc.info.structures[0]!;
    const byName = (await (
      await call('GET', `/api/external-assets?structure=${towerA}&category=Curtain%20Wall`)
    ).json()) as {
      result: {
        _id: string;
        shape: string;
        points: { x: number; y: number }[];
        stages: { percentage: number }[];
        category: string;
      }[];
    };
    const category = (svc.store.state.assetCategories as { id: string; name: string }[]).find(
      (c) => c.name === 'Curtain Wall',
    )!;
    const held = svc.store.state.assets.filter((a) => a.structure === towerA && a.category === category.id);
    expect(byName.result.length).toBeGreaterThan(0);
    expect(byName.result).toEqual(held.map(({ structure: _s, ...a }) => a));
    expect(byName.result.every((a) => a.shape === 'Polyline' && a.points.length >= 2 && !('structure' in a))).toBe(
      true,
    );
    const byId = (await (
      await call('GET', `/api/external-assets?structure=${towerA}&category=${category.id}`)
    ).json()) as { result: unknown[] };
    expect(byId.result).toEqual(byName.result);
    expect((await call('GET', `/api/external-assets?structure=${towerA}`)).status).toBe(400);
    expect((await call('GET', `/api/external-assets?structure=${towerA}&category=Roofing`)).status).toBe(404);
    expect((await call('GET', `/api/external-assets?structure=${'f'.repeat(24)}&category=Curtain%20Wall`)).status).toBe(
      404,
    );
  });
});

describe('the progressRequiresToken setting', () => {
  it('demands a bearer token of its own sign-in besides the key, on every call but sign-in', async () => {
    expect((await svc.admin('PUT', '/settings', { progressRequiresToken: true })).status).toBe(200);
    try {
      const list = `/progress?projectId=${svc.info.projectId}`;
      const refused = await call('GET', list);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ status: false, message: 'Unauthorized' });
      const signedIn = (await (
        await call('POST', '/v1/users/signin', { key: null, body: svc.info.account })
      ).json()) as { result: { token: string } };
      const withToken = (auth: string, key = svc.info.apiKey) =>
        fetch(`${svc.info.progressBaseUrl}${list}`, { headers: { 'x-api-key': key, authorization: auth } });
      expect((await withToken(`Bearer ${signedIn.result.token}`)).status).toBe(200);
      expect((await withToken('Bearer not.a.token')).status).toBe(401);
      // The token does not stand in for the key.
      expect((await withToken(`Bearer ${signedIn.result.token}`, 'ck_wrong')).status).toBe(401);
      const assets = await fetch(
        `${svc.info.progressBaseUrl}/api/external-asset-categories?project=${svc.info.projectId}`,
        { headers: { 'x-api-key': svc.info.apiKey } },
      );
      expect(assets.status).toBe(401);
    } finally {
      await svc.admin('PUT', '/settings', { progressRequiresToken: false });
    }
    expect((await call('GET', `/progress?projectId=${svc.info.projectId}`)).status).toBe(200);
  });
});
