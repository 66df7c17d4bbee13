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
  return fetch(`${svc.info.progressBaseUrl}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
};

describe('sign-in (progress-records-interface.md §4–5)', () => {
  it('answers 201 with the User, its token and refresh token, without needing the API key', async () => {
    const res = await call('POST', '/v1/users/signin', { key: null, body: svc.info.account });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { success: boolean; result: Record<string, unknown> };
    expect(body.success).toBe(true);
    expect(Object.keys(body.result).sort()).toEqual(
      [
        '_id', 'firstName', 'lastName', 'fullName', 'email', 'contact', 'dob', 'verified', 'createdAt', 'updatedAt', '__v', 'avatar',
        'isSupportUser', 'unReadNotifications', 'status', 'loginType', 'resetPasswordTimestamps', 'verificationTimestamps',
        'userPreference', 'age', 'canResendVerification', 'canResetPassword', 'provider', 'token', 'refreshToken',
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
    const entry = { projectId: svc.info.projectId, date: '2026-11-21', status: 'In Progress', details: 'Level 3 drywall taping 40%' };
    const created = await call('POST', '/progress', { body: entry });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string };
    expect(body).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/), ...entry });

    const list = (await (await call('GET', `/progress?projectId=${svc.info.projectId}`)).json()) as { date: string }[];
    expect(list.length).toBeGreaterThanOrEqual(6);
    expect(list.map((e) => e.date)).toEqual([...list.map((e) => e.date)].sort());
    const sameDay = (await (await call('GET', `/progress?projectId=${svc.info.projectId}&date=2026-11-21`)).json()) as unknown[];
    expect(sameDay).toEqual([body]);
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
    await bad(await call('POST', '/progress', { body: { projectId: svc.info.projectId, date: '2026-02-30', status: 'Completed', details: '' } }), 400, /date/);
    await bad(await call('POST', '/progress', { body: { projectId: svc.info.projectId, date: '2026-02-03', status: 'Done', details: '' } }), 400, /status/);
    await bad(await call('POST', '/progress', { body: { projectId: 'f'.repeat(24), date: '2026-02-03', status: 'Completed', details: '' } }), 404, /Project not found/);
  });

  it('answers 500 in the error shape when the service fails', async () => {
    await svc.admin('POST', '/faults', { target: 'progress', operation: 'progress', action: { type: 'status', status: 500 } });
    const res = await call('GET', `/progress?projectId=${svc.info.projectId}`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ status: false, message: 'Internal Server Error' });
    expect((await call('GET', `/progress?projectId=${svc.info.projectId}`)).status).toBe(200);
  });
});

describe('external asset categories and assets', () => {
  it('lists the categories of a project with their stages', async () => {
    const res = await call('GET', `/api/external-asset-categories?project=${svc.info.projectId}`);
    expect(res.status).toBe(200);
    const { success, result } = (await res.json()) as { success: boolean; result: Record<string, unknown>[] };
    expect(success).toBe(true);
    expect(result.map((c) => c.name)).toEqual(['Curtain Wall', 'Drywall Partitions']);
    const stage = (result[0]!.stages as Record<string, unknown>[])[0]!;
    expect(Object.keys(stage).sort()).toEqual(['_id', 'color', 'measurement', 'metrics', 'name', 'predecessors', 'sequence', 'uom']);
    expect(stage.metrics).toEqual({ structureId: expect.any(Number) });
    expect((await call('GET', '/api/external-asset-categories')).status).toBe(400);
  });

  it('lists the polyline assets of a structure in a category given by name or id', async () => {
    const byName = (await (await call('GET', `/api/external-assets?structure=${svc.info.structures[0]}&category=Curtain%20Wall`)).json()) as {
      result: { shape: string; points: { x: number; y: number }[]; stages: { percentage: number }[]; category: string }[];
    };
    expect(byName.result).toHaveLength(2);
    expect(byName.result[0]!.shape).toBe('Polyline');
    expect(byName.result[0]!.points[1]).toEqual({ x: 42.5, y: 0 });
    expect(byName.result[0]!.stages.map((s) => s.percentage)).toEqual([100, 100, 65, 10]);
    const byId = (await (await call('GET', `/api/external-assets?structure=${svc.info.structures[0]}&category=${byName.result[0]!.category}`)).json()) as {
      result: unknown[];
    };
    expect(byId.result).toEqual(byName.result);
    expect((await call('GET', `/api/external-assets?structure=${svc.info.structures[0]}`)).status).toBe(400);
    expect((await call('GET', `/api/external-assets?structure=${svc.info.structures[0]}&category=Roofing`)).status).toBe(404);
    expect((await call('GET', `/api/external-assets?structure=${'f'.repeat(24)}&category=Curtain%20Wall`)).status).toBe(404);
  });
});
