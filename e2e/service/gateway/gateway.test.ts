import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../testing.js';
import { startTestService } from '../testing.js';
import { ADD_CAPTURE_MESSAGES } from './captures.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

const project = (name: string) => svc.store.state.projects.find((p) => p.name === name)!;

function capture(files: unknown[], extra: Record<string, unknown> = {}) {
  return {
    project: svc.info.projectId,
    structure: svc.info.structures[0],
    captureDateTime: '2026-11-20T15:04:05Z',
    type: 'interior',
    mode: '360 Video',
    sourceType: 'bot',
    files,
    ...extra,
  };
}
const file = (fileName: string, frameIndex = 1, size = 1000) => ({
  frameIndex,
  fileName,
  contentType: 'video/insv',
  size,
});

describe('§4.1 sign-in', () => {
  it('answers a JWT that expires after 24 hours', async () => {
    const res = await fetch(`${svc.info.authUrl}/api/v1/users/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(svc.info.account),
    });
    expect(res.status).toBe(200);
    const { token } = (await res.json()) as { token: string };
    const claims = decodeJwt(token);
    expect(claims.exp! - claims.iat!).toBe(86_400);
    expect(claims.email).toBe(svc.info.account.email);
  });

  it('refuses wrong credentials with 401 and missing ones with 400', async () => {
    const signin = (body: unknown) =>
      fetch(`${svc.info.authUrl}/api/v1/users/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const wrong = await signin({ email: svc.info.account.email, password: 'wrong' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ success: false, message: 'Invalid email or password' });
    expect((await signin({ email: svc.info.account.email })).status).toBe(400);
  });
});

describe('§5 standard headers on every gateway call', () => {
  const calls: [string, string, boolean][] = [
    ['GET', `/progress/api/external-folders/project-folder-with-default-sheet?project=PROJECT`, true],
    ['GET', `/progress/api/external-folders/latest-default-design-update-time?projectId=PROJECT`, true],
    ['POST', '/captures/api/v1/external-captures/add-capture', true],
    ['POST', '/upload-service/uploads/none/parts/presign-missing', false],
    ['POST', '/upload-service/uploads/none/parts/complete-batch', true],
    ['GET', '/captures/api/v1/external-captures/none/upload-status', false],
  ];

  it.each(calls)('%s %s: 401 without a valid token, 403 with a wrong API key', async (method, rawPath) => {
    const path = rawPath.replace('PROJECT', svc.info.projectId);
    expect((await svc.gateway(method, path, { headers: { authorization: undefined } })).status).toBe(401);
    expect((await svc.gateway(method, path, { token: 'not.a.jwt' })).status).toBe(401);
    expect((await svc.gateway(method, path, { headers: { 'x-api-key': 'ck_wrong' } })).status).toBe(403);
  });

  it.each(calls.filter((c) => !c[1].includes('latest-default')))(
    '%s %s: 400 without x-project-id',
    async (method, rawPath) => {
      const res = await svc.gateway(method, rawPath.replace('PROJECT', svc.info.projectId), {
        headers: { 'x-project-id': undefined },
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toBe('Does not have access to the project');
    },
  );

  it.each(calls.filter((c) => c[2]))('%s %s: 415 without content-type application/json', async (method, rawPath) => {
    const res = await svc.gateway(method, rawPath.replace('PROJECT', svc.info.projectId), {
      headers: { 'content-type': undefined },
    });
    expect(res.status).toBe(415);
  });

  it('refuses a token once it expired (§5.3) and every token after the expire-now fault', async () => {
    // A JWT's exp is in whole seconds, so a 1 s token can lapse at once (issued at x.999 s); 3 s
    // leaves at least 2 s for the first call, and the wait runs to the token's own exp.
    expect((await svc.admin('PUT', '/settings', { tokenTtlSeconds: 3 })).status).toBe(200);
    const shortLived = await svc.token();
    await svc.admin('PUT', '/settings', { tokenTtlSeconds: 86_400 });
    const path = `/progress/api/external-folders/latest-default-design-update-time?projectId=${svc.info.projectId}`;
    expect((await svc.gateway('GET', path, { token: shortLived })).status).toBe(200);
    const { exp } = JSON.parse(Buffer.from(shortLived.split('.')[1]!, 'base64url').toString()) as { exp: number };
    await new Promise((r) => setTimeout(r, Math.max(0, exp * 1000 - Date.now()) + 100));
    expect((await svc.gateway('GET', path, { token: shortLived })).status).toBe(401);

    const fresh = await svc.token();
    expect((await svc.gateway('GET', path, { token: fresh })).status).toBe(200);
    expect((await svc.admin('POST', '/tokens/expire')).status).toBe(200);
    expect((await svc.gateway('GET', path, { token: fresh })).status).toBe(401);
    expect((await svc.gateway('GET', path, { token: await svc.token() })).status).toBe(200);
  });
});

describe('§4.2 export of default sheets', () => {
  const path = (q: string) => `/progress/api/external-folders/project-folder-with-default-sheet?${q}`;

  async function emailsFor(userEmail: string) {
    for (let i = 0; i < 50; i++) {
      const { emails } = (await (await svc.admin('GET', '/emails')).json()) as {
        emails: { to: string; link: string; sentAt: string; expiresAt: string }[];
      };
      const mine = emails.filter((e) => e.to === userEmail);
      if (mine.length) return mine;
      await new Promise((r) => setTimeout(r, 20));
    }
    return [];
  }

  it('answers at once and emails the signed-in user a link valid 7 days', async () => {
    const res = await svc.gateway('GET', path(`project=${svc.info.projectId}`));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { success: boolean; message: string };
    expect(body.success).toBe(true);
    expect(body.message).toMatch(/being generated/);
    const [email] = await emailsFor(svc.info.account.email);
    expect(email!.link).toMatch(/\.zip$/);
    expect(Date.parse(email!.expiresAt) - Date.parse(email!.sentAt)).toBe(7 * 86_400_000);
  });

  it('sends it to the user named in the user query instead', async () => {
    const office = svc.store.state.accounts[1]!;
    expect((await svc.gateway('GET', path(`project=${svc.info.projectId}&user=${office._id}`))).status).toBe(200);
    expect(await emailsFor(office.email)).toHaveLength(1);
    expect((await svc.gateway('GET', path(`project=${svc.info.projectId}&user=${'f'.repeat(24)}`))).status).toBe(404);
  });

  it('refuses a missing project (400) and another project than x-project-id (400)', async () => {
    expect((await svc.gateway('GET', path(''))).status).toBe(400);
    expect((await svc.gateway('GET', path(`project=${project('Old Mill Lofts').id}`))).status).toBe(400);
  });
});

describe('§4.3 latest default design update time, and its error table', () => {
  const path = (id?: string) =>
    `/progress/api/external-folders/latest-default-design-update-time${id ? `?projectId=${id}` : ''}`;
  const as = (name: string) => ({ 'x-api-key': project(name).apiKey, 'x-project-id': project(name).id });

  it('answers the newest update time of the default designs, and follows a change', async () => {
    const res = await svc.gateway('GET', path(svc.info.projectId));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      success: true,
      data: { latestDefaultDesignUpdatedAt: '2026-10-11T09:31:00.000Z' },
    });
    const design = svc.store.state.projects[0]!.structures[1]!.designs[0]!;
    await svc.admin('POST', `/projects/${svc.info.projectId}/designs/${design.id}/touch`, {
      updatedAt: '2026-11-21T10:00:00.000Z',
    });
    const after = (await (await svc.gateway('GET', path(svc.info.projectId))).json()) as {
      data: { latestDefaultDesignUpdatedAt: string };
    };
    expect(after.data.latestDefaultDesignUpdatedAt).toBe('2026-11-21T10:00:00.000Z');
  });

  it('answers null for a project without default designs', async () => {
    const p = project('Northgate Elementary School');
    const res = await svc.gateway('GET', path(p.id), { headers: as(p.name) });
    expect(await res.json()).toEqual({ success: true, data: { latestDefaultDesignUpdatedAt: null } });
  });

  it('400 "Does not have access to the project" when neither projectId nor x-project-id resolves', async () => {
    const res = await svc.gateway('GET', path(), { headers: { 'x-project-id': undefined } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: 'Does not have access to the project' });
  });

  it('404 "Project not found" for an unknown project id', async () => {
    const res = await svc.gateway('GET', path('0'.repeat(24)));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'Project not found' });
  });

  it.each([
    ['Eastside Library', 'Pre-Setup'],
    ['Canal Street Offices', 'Deleted'],
  ])('403 for %s, a project in %s, naming the stage', async (name, stage) => {
    const res = await svc.gateway('GET', path(project(name).id), { headers: as(name) });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      message: `Access restricted: Project is not in an allowed stage. Current stage: ${stage}`,
    });
  });

  it('allows Archived and Setup, and follows a stage change', async () => {
    const archived = project('Old Mill Lofts');
    expect((await svc.gateway('GET', path(archived.id), { headers: as(archived.name) })).status).toBe(200);
    await svc.admin('POST', `/projects/${archived.id}/stage`, { stage: 'Deleted' });
    expect((await svc.gateway('GET', path(archived.id), { headers: as(archived.name) })).status).toBe(403);
    await svc.admin('POST', `/projects/${archived.id}/stage`, { stage: 'Archived' });
  });
});

describe('§4.4 add-capture', () => {
  const add = (captures: unknown[]) =>
    svc.gateway('POST', '/captures/api/v1/external-captures/add-capture', { body: { captures } });

  it('registers a dual-lens capture and answers its summary and upload manifest', async () => {
    const res = await add([
      capture(
        [
          { ...file('VID_20261120_150405_00_001.insv', 1, 12 * 1024 * 1024), externalId: 'lens-0' },
          file('VID_20261120_150405_10_001.INSV', 2, 5 * 1024 * 1024),
          { frameIndex: 3, fileName: 'track.csv', contentType: 'text/csv', size: 300 },
        ],
        {
          design: svc.info.designs[0],
          metaDetails: { frameRate: 29.97, videoType: '360', cameraName: 'Insta360 OneR', startPoint: [0, 0, 0] },
        },
      ),
    ]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      success: boolean;
      result: { capture: Record<string, unknown>; uploadManifest: Record<string, unknown>[] }[];
    };
    expect(body.success).toBe(true);
    const [{ capture: summary, uploadManifest }] = body.result as [(typeof body.result)[0]];
    expect(summary).toMatchObject({
      project: svc.info.projectId,
      structure: svc.info.structures[0],
      uploadStatus: 'pending',
      expectedFiles: 3,
      completedFiles: 0,
    });
    expect(summary.captureId).toMatch(/^[0-9a-f]{24}$/);
    expect(uploadManifest.map((m) => [m.frameIndex, m.fileName, m.size, m.partSize, m.totalParts, m.status])).toEqual([
      [1, 'VID_20261120_150405_00_001.insv', 12 * 1024 * 1024, 5242880, 3, 'initiated'],
      [2, 'VID_20261120_150405_10_001.INSV', 5 * 1024 * 1024, 5242880, 1, 'initiated'],
      [3, 'track.csv', 300, 5242880, 1, 'initiated'],
    ]);
    expect(new Set(uploadManifest.map((m) => m.uploadId)).size).toBe(3);
  });

  it.each([
    [
      'more than 3 files',
      [file('a.insv', 1), file('b.insv', 2), file('c.csv', 3), file('d.mp4', 4)],
      ADD_CAPTURE_MESSAGES.tooManyFiles,
    ],
    ['a file without fileName', [{ frameIndex: 1, contentType: 'video/mp4', size: 10 }], ADD_CAPTURE_MESSAGES.fileName],
    ['an empty fileName', [file('', 1)], ADD_CAPTURE_MESSAGES.fileName],
    ['a .mov file', [file('walk.mov', 1)], ADD_CAPTURE_MESSAGES.fileType],
    ['a .jpg beside a video', [file('walk.mp4', 1), file('cover.jpg', 2)], ADD_CAPTURE_MESSAGES.fileType],
    ['a CSV alone', [file('track.csv', 1)], ADD_CAPTURE_MESSAGES.noVideo],
  ])('422 for %s, with the interface message', async (_, files, message) => {
    const res = await add([capture(files)]);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ success: false, message });
  });

  it('accepts extensions case-insensitively', async () => {
    expect((await add([capture([file('WALK.MP4', 1), file('Track.CSV', 2)])])).status).toBe(200);
  });

  it.each([
    ['a bad type', { type: 'attic' }, /type/],
    ['a timestamp without a zone', { captureDateTime: '2026-11-20 15:04' }, /captureDateTime/],
    ['an unknown structure', { structure: 'f'.repeat(24) }, /structure/],
    ['a design of another structure', { design: 'LAST_DESIGN' }, /design/],
    ['another project', { project: 'f'.repeat(24) }, /project/],
  ] as [string, Record<string, unknown>, RegExp][])('422 for %s, naming the field', async (_, extra, pattern) => {
    // Designs exist only once the service started; the table names the last one symbolically.
    const fields = extra.design === 'LAST_DESIGN' ? { design: svc.info.designs.at(-1) } : extra;
    const res = await add([capture([file('a.mp4')], fields)]);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { message: string }).message).toMatch(pattern);
  });

  it('registers nothing when one capture of a request is invalid', async () => {
    const before = Object.keys(svc.store.state.captures).length;
    const res = await add([capture([file('ok.mp4')]), capture([file('bad.avi')])]);
    expect(res.status).toBe(422);
    expect(Object.keys(svc.store.state.captures)).toHaveLength(before);
  });
});
