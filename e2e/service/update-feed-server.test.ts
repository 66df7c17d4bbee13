import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './testing.js';
import { feedFolders, feedRequests, publishUpdate, setFeedFaults, startTestService } from './testing.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
});

const get = (path: string, init?: RequestInit) => fetch(`${svc.info.updatesUrl}/${path}`, init);

describe('the update feed', () => {
  it('serves a TUF repository signed with the service’s keys: the root to pin, the metadata, and each target under its hash', async () => {
    const root = JSON.parse(readFileSync(svc.info.updatesRoot, 'utf8')) as {
      signed: { _type: string; version: number };
    };
    expect(root.signed).toMatchObject({ _type: 'root', version: 1 });
    expect(await (await get('metadata/1.root.json')).json()).toEqual(root);
    const content = randomBytes(70_000);
    const published = await publishUpdate(svc, {
      version: '1.2.3',
      fileName: 'capture-uploader-setup-1.2.3.exe',
      content,
    });
    expect(published).toEqual({
      version: '1.2.3',
      path: 'capture-uploader-setup-1.2.3.exe',
      length: 70_000,
      sha256: createHash('sha256').update(content).digest('hex'),
      sha512: createHash('sha512').update(content).digest('hex'),
    });
    const timestamp = (await (await get('metadata/timestamp.json')).json()) as {
      signed: { meta: { 'snapshot.json': { version: number } } };
    };
    const snapshotVersion = timestamp.signed.meta['snapshot.json'].version;
    const snapshot = (await (await get(`metadata/${snapshotVersion}.snapshot.json`)).json()) as {
      signed: { meta: { 'targets.json': { version: number } } };
    };
    const targets = (await (
      await get(`metadata/${snapshot.signed.meta['targets.json'].version}.targets.json`)
    ).json()) as {
      signed: { targets: Record<string, { length: number; custom: Record<string, unknown> }> };
    };
    expect(Object.keys(targets.signed.targets).sort()).toEqual([
      'capture-uploader-setup-1.2.3.exe',
      'latest-linux-arm64.yml',
      'latest-linux.yml',
      'latest-mac.yml',
      'latest.yml',
    ]);
    expect(targets.signed.targets['latest.yml']!.custom).toEqual({
      appId: 'com.captureuploader.desktop',
      version: '1.2.3',
      installers: ['capture-uploader-setup-1.2.3.exe'],
    });
    const bytes = await get(`targets/${published.sha256}.capture-uploader-setup-1.2.3.exe`);
    expect(Buffer.from(await bytes.arrayBuffer()).equals(content)).toBe(true);
    // The private keys are in the service's data folder, never on the feed.
    expect((await get('metadata/../update-keys')).status).toBe(404);
    expect(feedFolders(svc).keys).not.toContain(feedFolders(svc).repo);
  });

  it('refuses to publish a version that is not newer, names it, and answers 404 for what it does not hold', async () => {
    const res = await svc.admin('POST', '/updates', { version: '1.0.0', fileName: 'cu-1.0.0.exe', contentBase64: '' });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { message: string }).message).toMatch(/version 1\.0\.0 is not newer than 1\.2\.3/);
    expect(
      (await svc.admin('POST', '/updates', { version: '1', fileName: '../escape.exe', contentBase64: '' })).status,
    ).toBe(400);
    expect((await get('targets/missing.exe')).status).toBe(404);
    expect((await get('metadata/..%2Fservice-state.db')).status).toBe(404);
  });

  it('misbehaves as told: a hang, a trickle, a redirect elsewhere and a body past its length, each recorded', async () => {
    await setFeedFaults(svc, [
      { match: '^metadata/timestamp\\.json$', action: { type: 'hang' } },
      { match: '^metadata/1\\.root\\.json$', action: { type: 'trickle', bytesPerSecond: 20 } },
      { match: '^metadata/2\\.root\\.json$', action: { type: 'redirect', to: 'http://elsewhere.example/feed' } },
      { match: '\\.exe$', action: { type: 'extend', bytes: 4 * 1024 * 1024 } },
    ]);
    // The hang: no status line comes (the client gives up).
    await expect(get('metadata/timestamp.json', { signal: AbortSignal.timeout(500) })).rejects.toThrow();
    // The trickle: 20 bytes a second.
    const slow = await get('metadata/1.root.json');
    const reader = slow.body!.getReader();
    const started = Date.now();
    let got = 0;
    while (Date.now() - started < 1000) got += (await reader.read()).value?.length ?? 0;
    await reader.cancel();
    expect(got).toBeGreaterThan(5);
    expect(got).toBeLessThan(60);
    const moved = await get('metadata/2.root.json', { redirect: 'manual' });
    expect([moved.status, moved.headers.get('location')]).toEqual([
      302,
      'http://elsewhere.example/feed/metadata/2.root.json',
    ]);
    const { sha256 } = await publishUpdate(svc, {
      version: '1.3.0',
      fileName: 'cu-1.3.0.exe',
      content: randomBytes(1000),
    });
    const long = await get(`targets/${sha256}.cu-1.3.0.exe`);
    expect((await long.arrayBuffer()).byteLength).toBe(4 * 1024 * 1024);
    await setFeedFaults(svc, []);
    expect((await get('metadata/timestamp.json')).status).toBe(200);
    const seen = await feedRequests(svc);
    expect(seen.filter((r) => r.path === 'metadata/timestamp.json').length).toBeGreaterThanOrEqual(3);
    expect(seen.find((r) => r.path.endsWith('.cu-1.3.0.exe'))?.bytesSent).toBe(4 * 1024 * 1024);
  });
});
