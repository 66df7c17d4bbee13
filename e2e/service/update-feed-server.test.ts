import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './testing.js';
import { publishUpdate, startTestService } from './testing.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
});

describe('the update feed', () => {
  it('serves every platform’s channel file naming the installer with its SHA-512 and size, and the installer’s bytes', async () => {
    const content = randomBytes(70_000);
    const sha512 = createHash('sha512').update(content).digest('base64');
    expect(
      await publishUpdate(svc, { version: '1.2.3', fileName: 'Capture-Uploader-Setup-1.2.3.exe', content }),
    ).toEqual({ sha512, size: 70_000, path: 'Capture-Uploader-Setup-1.2.3.exe' });
    for (const name of ['latest.yml', 'latest-mac.yml', 'latest-linux.yml', 'latest-linux-arm64.yml']) {
      const res = await fetch(`${svc.info.updatesUrl}/${name}`);
      expect(res.status, name).toBe(200);
      const yml = await res.text();
      expect(yml).toContain('version: "1.2.3"\n');
      expect(yml).toContain(`  - url: "Capture-Uploader-Setup-1.2.3.exe"\n    sha512: "${sha512}"\n    size: 70000\n`);
    }
    const res = await fetch(`${svc.info.updatesUrl}/Capture-Uploader-Setup-1.2.3.exe?noCache=1`);
    expect(Buffer.from(await res.arrayBuffer()).equals(content)).toBe(true);
  });

  it('states the SHA-512 it is given instead of the true one (a tampered release), refuses unsafe names, and answers 404 for what it does not hold', async () => {
    const published = await publishUpdate(svc, {
      version: '1.2.4',
      fileName: 'cu_1.2.4_amd64.deb',
      content: Buffer.from('bytes'),
      sha512: 'bm90IHRoZSBoYXNo',
    });
    expect(published.sha512).toBe('bm90IHRoZSBoYXNo');
    expect(await (await fetch(`${svc.info.updatesUrl}/latest-linux.yml`)).text()).toContain(
      'sha512: "bm90IHRoZSBoYXNo"',
    );
    expect(
      (await svc.admin('POST', '/updates', { version: '1', fileName: '../escape.exe', contentBase64: '' })).status,
    ).toBe(400);
    expect((await fetch(`${svc.info.updatesUrl}/missing.exe`)).status).toBe(404);
    expect((await fetch(`${svc.info.updatesUrl}/..%2Fservice-state.db`)).status).toBe(404);
  });
});
