import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRuleInput } from './faults.js';
import type { TestService } from './testing.js';
import { putBytes, registerCapture, startTestService } from './testing.js';

// Contract tests of the settings and faults that make the local service as unkind as real
// servers and networks.

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterEach(async () => {
  await svc.admin('DELETE', '/faults');
  await svc.admin('PUT', '/settings', { strictContentType: false, statusRead: 'ok', completeBatchAllParts: false });
});
afterAll(() => svc.stop());

const addFault = async (rule: FaultRuleInput) => expect((await svc.admin('POST', '/faults', rule)).status).toBe(201);
const uploadId = async () =>
  (await registerCapture(svc, [{ name: 'walk.mp4', size: 4096, contentType: 'video/mp4' }], svc.info.structures[1]))
    .manifest[0]!.uploadId;

describe('strictContentType', () => {
  it('answers 400 to a bodiless call that declares JSON, as Fastify does, and takes it without the header', async () => {
    const id = await uploadId();
    await svc.admin('PUT', '/settings', { strictContentType: true });
    const refused = await svc.gateway('POST', `/upload-service/uploads/${id}/parts/presign-missing`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { code: string }).code).toBe('FST_ERR_CTP_EMPTY_JSON_BODY');
    const status = await svc.gateway('GET', `/upload-service/uploads/${id}/status`);
    expect(status.status).toBe(400);
    const plain = await svc.gateway('POST', `/upload-service/uploads/${id}/parts/presign-missing`, {
      headers: { 'content-type': undefined },
    });
    expect(plain.status).toBe(200);
  });

  it('still takes §4.2 and §4.3 with the header they require, and JSON bodies', async () => {
    await svc.admin('PUT', '/settings', { strictContentType: true });
    const q = `projectId=${svc.info.projectId}`;
    expect(
      (await svc.gateway('GET', `/progress/api/external-folders/latest-default-design-update-time?${q}`)).status,
    ).toBe(200);
    expect(
      (
        await svc.gateway(
          'GET',
          `/progress/api/external-folders/project-folder-with-default-sheet?project=${svc.info.projectId}`,
        )
      ).status,
    ).toBe(200);
    await expect(uploadId()).resolves.toMatch(/.+/);
  });

  it('is off by default', async () => {
    const id = await uploadId();
    expect((await svc.gateway('POST', `/upload-service/uploads/${id}/parts/presign-missing`)).status).toBe(200);
  });
});

describe('statusRead', () => {
  it.each([404, 405] as const)('answers %i to the §4.9 status read while the other calls work', async (status) => {
    const id = await uploadId();
    await svc.admin('PUT', '/settings', { statusRead: status });
    expect((await svc.gateway('GET', `/upload-service/uploads/${id}/status?syncFromS3=true`)).status).toBe(status);
    expect((await svc.gateway('POST', `/upload-service/uploads/${id}/parts/presign-missing`)).status).toBe(200);
    await svc.admin('PUT', '/settings', { statusRead: 'ok' });
    expect((await svc.gateway('GET', `/upload-service/uploads/${id}/status?syncFromS3=true`)).status).toBe(200);
  });
});

describe('html fault: a captive portal or proxy page where JSON was expected', () => {
  it('answers the gateway with an HTML page and registers nothing', async () => {
    await addFault({ target: 'gateway', operation: 'add-capture', action: { type: 'html', status: 200 } });
    const before = Object.keys(
      ((await (await svc.admin('GET', '/state')).json()) as { captures: object }).captures,
    ).length;
    await expect(uploadId()).rejects.toThrow();
    const res = await svc.gateway('POST', '/captures/api/v1/external-captures/add-capture', { body: { captures: [] } });
    expect(res.status).not.toBe(200); // the fault fired once; the real handler answers again
    const after = Object.keys(
      ((await (await svc.admin('GET', '/state')).json()) as { captures: object }).captures,
    ).length;
    expect(after).toBe(before);
  });

  it.each([
    ['auth', `/api/v1/users/signin`, 'POST', 200],
    ['progress', `/v1/users/signin`, 'POST', 403],
  ] as const)('answers %s with an HTML page and the given status', async (target, path, method, status) => {
    await addFault({ target, action: { type: 'html', status } });
    const base = target === 'auth' ? svc.info.authUrl : svc.info.progressBaseUrl;
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(svc.info.account),
    });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toMatch(/<html>/);
    const again = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(svc.info.account),
    });
    expect(again.headers.get('content-type')).toMatch(/json/);
  });
});

describe('as strict as the interface: §4.3 without a project', () => {
  const path = (q: string) => `/progress/api/external-folders/latest-default-design-update-time${q}`;
  it.each([
    ['no projectId query, the header only', '', {}],
    ['the query only, no x-project-id', `?projectId=PROJECT`, { 'x-project-id': undefined }],
  ])('%s: 400 "Does not have access to the project" (§7)', async (_, q, headers) => {
    const res = await svc.gateway('GET', path(q.replace('PROJECT', svc.info.projectId)), { headers });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: 'Does not have access to the project' });
  });
});

describe('completeBatchAllParts: §4.7 "all parts of the file are sent in one call"', () => {
  it('refuses a report of some parts with 400 naming the ones left out, and takes one of all', async () => {
    const { manifest } = await registerCapture(
      svc,
      [{ name: 'all.mp4', size: 6 * 1024 * 1024, contentType: 'video/mp4' }],
      svc.info.structures[1],
    );
    const { uploadId, partSize } = manifest[0]!;
    const body = Buffer.alloc(6 * 1024 * 1024, 7);
    const { parts } = (await (
      await svc.gateway('POST', `/upload-service/uploads/${uploadId}/parts/presign-missing`)
    ).json()) as { parts: { partNumber: number; url: string }[] };
    const reported = [];
    for (const p of parts) {
      const bytes = body.subarray((p.partNumber - 1) * partSize, p.partNumber * partSize);
      reported.push({
        partNumber: p.partNumber,
        etag: (await putBytes(p.url, bytes)).headers.get('etag')!,
        size: bytes.length,
      });
    }
    await svc.admin('PUT', '/settings', { completeBatchAllParts: true });
    const path = `/upload-service/uploads/${uploadId}/parts/complete-batch`;
    const some = await svc.gateway('POST', path, { body: { parts: reported.slice(0, 1) } });
    expect(some.status).toBe(400);
    expect(await some.json()).toEqual({
      ok: false,
      message: 'All 2 parts of the file must be reported in one call; not reported: 2',
    });
    const all = await svc.gateway('POST', path, { body: { parts: reported } });
    expect(((await all.json()) as { upload: { status: string } }).upload.status).toBe('completed');
    await svc.admin('PUT', '/settings', { completeBatchAllParts: false });
  });
});

describe('as strict as S3: a presigned PUT that carries an Authorization header', () => {
  it('is refused 400 InvalidArgument "Only one auth mechanism allowed", storing nothing; without the header it is stored', async () => {
    const id = await uploadId();
    const { parts } = (await (
      await svc.gateway('POST', `/upload-service/uploads/${id}/parts/presign-missing`)
    ).json()) as { parts: { url: string }[] };
    const body = new Uint8Array(Buffer.alloc(4096, 3));
    const storedBefore = svc.storage.stats.partsStored;
    const refused = await fetch(parts[0]!.url, {
      method: 'PUT',
      body,
      headers: { authorization: 'Bearer some-token' },
    });
    expect(refused.status).toBe(400);
    const xml = await refused.text();
    expect(xml).toMatch(/<Code>InvalidArgument<\/Code>/);
    expect(xml).toMatch(/Only one auth mechanism allowed/);
    expect(svc.storage.stats.partsStored).toBe(storedBefore);
    expect((await putBytes(parts[0]!.url, Buffer.from(body))).status).toBe(200);
  });
});

describe("as strict as a careful server: progress reads outside the key's project", () => {
  it("refuses another project's list and categories (401) and answers its entry and structure as absent (404)", async () => {
    const state = (await (await svc.admin('GET', '/state')).json()) as { projects: { id: string; apiKey: string }[] };
    const otherKey = state.projects.find((p) => p.id !== svc.info.projectId)!.apiKey;
    const read = (path: string, key: string) =>
      fetch(`${svc.info.progressBaseUrl}${path}`, { headers: { 'x-api-key': key } });
    const own = (await (await read(`/progress?projectId=${svc.info.projectId}`, svc.info.apiKey)).json()) as {
      id: string;
    }[];
    expect(own.length).toBeGreaterThan(0);
    const cats = (await (
      await read(`/api/external-asset-categories?project=${svc.info.projectId}`, svc.info.apiKey)
    ).json()) as { result: { name: string }[] };
    const assets = `/api/external-assets?structure=${svc.info.structures[0]}&category=${encodeURIComponent(cats.result[0]!.name)}`;
    expect((await read(assets, svc.info.apiKey)).status).toBe(200);
    expect((await read(`/progress/${own[0]!.id}`, svc.info.apiKey)).status).toBe(200);

    expect((await read(`/progress?projectId=${svc.info.projectId}`, otherKey)).status).toBe(401);
    expect((await read(`/api/external-asset-categories?project=${svc.info.projectId}`, otherKey)).status).toBe(401);
    const entry = await read(`/progress/${own[0]!.id}`, otherKey);
    expect(entry.status).toBe(404);
    expect(await entry.json()).toEqual({ status: false, message: 'Progress not found' });
    expect((await read(assets, otherKey)).status).toBe(404);
  });
});
