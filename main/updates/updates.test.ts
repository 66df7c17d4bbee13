import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestService } from '../../e2e/service/testing.js';
import { feedFolders, feedRequests, publishUpdate, startTestService } from '../../e2e/service/testing.js';
import { newKeyFile, signer } from '../../scripts/release-sign/keys.js';
import { rotateKeys } from '../../scripts/release-sign/repository.js';
import { Metadata, MetadataKind } from '@tufjs/models';
import { installedApp, pinRoot, settle, updatesFor } from '../testing/updater-kit.js';
import { CHECK_DEADLINE_MS, CHECK_EVERY_MS, Updates, updateDetail, updateLine } from './updates.js';

// The app's updates end to end under plain Node: the TUF client (tuf-js) against the local
// service's signed feed, made by release:sign; electron-updater's own updater (its generic
// provider, download and SHA-512 check) reading only the verified files on the loopback feed.
// main/updates/attacks.test.ts tries TUF's attacks on the same path.
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
});

describe('updates from a signed feed', () => {
  it('downloads a newer version in the background, verified against its signed entry, and installs it only when asked at quit', async () => {
    const content = randomBytes(300 * 1024);
    const target = await publishUpdate(svc, {
      version: '0.2.0',
      fileName: 'capture-uploader_0.2.0_amd64.deb',
      content,
    });
    expect(target.sha512).toBe(createHash('sha512').update(content).digest('hex'));
    const app = installedApp();
    // A feed behind a token: the token must not reach the log or the status.
    const logs: string[] = [];
    const changes: string[] = [];
    let every: { ms: number; fn: () => void } | undefined;
    const before = (await feedRequests(svc)).length;
    const u = updatesFor(svc, app, {
      feedUrl: `${svc.info.updatesUrl}?token=feed-s3cret`,
      log: { info: (m) => logs.push(m), warn: (m) => logs.push(m) },
      onChange: (s) => changes.push(s.state),
      every: (ms, fn) => ((every = { ms, fn }), () => {}),
    });
    u.start();
    const status = await settle(u);
    expect(status).toMatchObject({ state: 'ready', version: '0.1.0', next: '0.2.0', problem: null });
    expect(changes).toEqual(['checking', 'downloading', 'ready']);
    expect(updateLine(status)).toBe('Version 0.1.0 · update ready: 0.2.0, installs when you quit');
    expect(updateDetail(status)).toMatch(
      /^Update ready: 0\.2\.0, installs when you quit, once uploads in progress have stopped\. Last checked .+\.$/,
    );
    // The installer electron-updater keeps for the install is the published bytes.
    expect(app.held()).toEqual(['capture-uploader_0.2.0_amd64.deb']);
    expect(readFileSync(join(app.pending, 'capture-uploader_0.2.0_amd64.deb')).equals(content)).toBe(true);
    // What the app read from the feed: the signed metadata, then the two targets, by hash; and
    // electron-updater asked the loopback feed only.
    const read = (await feedRequests(svc)).slice(before).map((r) => r.path.replace(/[0-9a-f]{64}/, 'HASH'));
    expect(read).toEqual([
      'metadata/2.root.json',
      'metadata/timestamp.json',
      'metadata/2.snapshot.json',
      'metadata/2.targets.json',
      'targets/HASH.latest-linux.yml',
      'targets/HASH.capture-uploader_0.2.0_amd64.deb',
    ]);
    expect(app.http.asked.map((a) => new URL(a).hostname)).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(app.http.asked[1]).toMatch(/\/capture-uploader_0\.2\.0_amd64\.deb$/);
    // Checked at start, and again every day.
    expect(app.made).toHaveBeenCalledTimes(1);
    expect(every?.ms).toBe(CHECK_EVERY_MS);
    expect(CHECK_EVERY_MS).toBe(86_400_000);
    expect(CHECK_DEADLINE_MS).toBe(60_000);
    // Nothing is installed until quit hands over (after its drain rules), then silently, once.
    expect(app.quitAndInstall).not.toHaveBeenCalled();
    expect(await u.installOnQuit()).toBe(true);
    expect(app.quitAndInstall).toHaveBeenCalledExactlyOnceWith(true, false);
    expect(logs.join('\n')).toMatch(/0\.2\.0/);
    expect(JSON.stringify([logs, u.status])).not.toMatch(/feed-s3cret/);
  });

  it('installs nothing whose held installer no longer matches its signed entry, at quit or when handed over', async () => {
    await publishUpdate(svc, {
      version: '0.2.5',
      fileName: 'capture-uploader_0.2.5_amd64.deb',
      content: randomBytes(2048),
    });
    const app = installedApp();
    const logs: string[] = [];
    const u = updatesFor(svc, app, { log: { info: (m) => logs.push(m), warn: (m) => logs.push(m) } });
    u.start();
    expect((await settle(u)).state).toBe('ready');
    // Someone changes the file electron-updater holds after it was made ready: quit installs nothing.
    const held = join(app.pending, app.held()[0]!);
    writeFileSync(held, Buffer.concat([readFileSync(held), Buffer.from('tampered')]));
    expect(await u.installOnQuit()).toBe(false);
    expect(app.quitAndInstall).not.toHaveBeenCalled();
    expect(logs.join('\n')).toMatch(
      /^Updates: version 0\.2\.5 was not installed: .*pending\/capture-uploader_0\.2\.5_amd64\.deb does not match the signed length and hashes of capture-uploader_0\.2\.5_amd64\.deb$/m,
    );
    // The same updater asked again hands over the copy it validated before without hashing it
    // again (electron-updater remembers it in memory): the check after its download refuses it.
    const again = updatesFor(svc, app);
    again.start();
    expect(await settle(again)).toMatchObject({
      state: 'failed',
      problem: expect.stringMatching(
        /^Version 0\.2\.5 could not be downloaded: .* does not match the signed length and hashes of capture-uploader_0\.2\.5_amd64\.deb\.$/,
      ),
    });
    expect(await again.installOnQuit()).toBe(false);
    expect(app.quitAndInstall).not.toHaveBeenCalled();
  });

  it('with the feed naming the running version, says so and downloads nothing; the daily check reads the feed again', async () => {
    const other = await startTestService();
    try {
      await publishUpdate(other, {
        version: '0.1.0',
        fileName: 'capture-uploader_0.1.0_amd64.deb',
        content: randomBytes(1024),
      });
      const app = installedApp();
      let daily: (() => void) | undefined;
      const u = updatesFor(other, app, { every: (_ms, fn) => ((daily = fn), () => {}) });
      u.start();
      const first = await settle(u);
      expect(first).toMatchObject({ state: 'idle', next: null });
      expect(updateLine(first, Date.parse(first.checkedAt!))).toMatch(
        /^Version 0\.1\.0 · up to date \(checked \d{1,2}:\d{2}( [AP]M)?\)$/,
      );
      expect(updateDetail(first)).toMatch(/^Up to date: the last check \(.+\) found no newer version\.$/);
      expect(app.held()).toEqual([]);
      // A day later the feed offers 0.2.1: the daily check finds and downloads it.
      await publishUpdate(other, {
        version: '0.2.1',
        fileName: 'capture-uploader_0.2.1_amd64.deb',
        content: randomBytes(4096),
      });
      daily!();
      await vi.waitFor(() => expect(u.status).toMatchObject({ state: 'ready', next: '0.2.1' }), {
        timeout: 20_000,
        interval: 50,
      });
      expect(app.made).toHaveBeenCalledTimes(1);
    } finally {
      await other.stop();
    }
  });

  it('follows a rotation of the root key: the new root, signed by the old key and the new, is trusted; one signed by another key alone is not', async () => {
    const rotated = await startTestService();
    const thiefDir = mkdtempSync(join(tmpdir(), 'thief-'));
    try {
      const app = installedApp();
      pinRoot(rotated, app);
      const { repo, keys } = feedFolders(rotated);
      // The publisher replaces its root key: root version 2, signed by the old root key and the new.
      rotateKeys({ repo, role: 'root', keys: { dir: keys }, keysDir: keys });
      await publishUpdate(rotated, {
        version: '0.2.0',
        fileName: 'capture-uploader_0.2.0_amd64.deb',
        content: randomBytes(2048),
      });
      const u = updatesFor(rotated, app);
      u.start();
      expect(await settle(u)).toMatchObject({ state: 'ready', next: '0.2.0' });
      // Root version 3 naming a key of someone else's, signed by that key alone.
      const thief = newKeyFile(thiefDir, 'root');
      const two = JSON.parse(readFileSync(join(repo, 'metadata', '2.root.json'), 'utf8')) as {
        signed: { version: number; keys: Record<string, unknown>; roles: { root: { keyids: string[] } } };
      };
      two.signed.version = 3;
      two.signed.keys[thief.keyId] = thief.key.toJSON();
      two.signed.roles.root.keyids = [thief.keyId];
      const three = Metadata.fromJSON(MetadataKind.Root, { signatures: [], signed: two.signed } as never);
      three.sign(signer(thief));
      writeFileSync(join(repo, 'metadata', '3.root.json'), JSON.stringify(three.toJSON()));
      const fresh = installedApp();
      pinRoot(rotated, fresh);
      const v = updatesFor(rotated, fresh);
      v.start();
      expect((await settle(v)).problem).toBe(
        "Updates could not be checked: the feed's root metadata are not signed by this app's publisher (0 of the 1 signatures needed).",
      );
    } finally {
      await rotated.stop();
      rmSync(thiefDir, { recursive: true, force: true });
    }
  });

  it('an unreachable feed is a failed check that says so, nothing ready', async () => {
    const dead = `${svc.info.updatesUrl.replace(/\/updates$/, '')}/nowhere`;
    const app = installedApp();
    const u = updatesFor(svc, app, { feedUrl: dead });
    u.start();
    const status = await settle(u);
    expect(status).toMatchObject({ state: 'failed', next: null });
    expect(status.problem).toBe('Updates could not be checked: the feed answered 404 for metadata/timestamp.json.');
    expect(updateLine(status)).toMatch(/^Version 0\.1\.0 · updates could not be checked \(.+\)$/);
    expect(updateDetail(status)).toMatch(
      /^Updates could not be checked: the feed answered 404 for metadata\/timestamp\.json \(.+\)\. The next check is within a day\.$/,
    );
    expect(await u.installOnQuit()).toBe(false);
  });

  it('an empty feed address is updates off: no updater is made and nothing is read', async () => {
    const made = vi.fn();
    const u = new Updates({
      version: '0.1.0',
      feedUrl: '',
      trust: { rootPath: 'x', cacheDir: 'y', appId: 'z' },
      updater: made,
    });
    u.start();
    expect(u.status).toEqual({ version: '0.1.0', state: 'off', next: null, problem: null, checkedAt: null });
    expect(made).not.toHaveBeenCalled();
    expect(await u.installOnQuit()).toBe(false);
    expect(updateLine(u.status)).toBe('Version 0.1.0');
    expect(updateDetail(u.status)).toBe('Updates are off: no update feed address is set (Settings, "Updates").');
  });

  it('a build without an update root is updates off, saying why; a checkout reads no feed at all', async () => {
    const made = vi.fn();
    const u = new Updates({
      version: '0.1.0',
      feedUrl: svc.info.updatesUrl,
      trust: { rootPath: '', cacheDir: 'y', appId: 'z' },
      updater: made,
    });
    u.start();
    expect(made).not.toHaveBeenCalled();
    expect(updateDetail(u.status)).toBe(
      'Updates are off: this build carries no update root (assets/update-root.json), so no update could be trusted: see "Publishing a signed update" in docs/desktop-app.md.',
    );
    const app = installedApp();
    const updater = app.made();
    vi.spyOn(updater as unknown as { isUpdaterActive(): boolean }, 'isUpdaterActive').mockReturnValue(false);
    const before = (await feedRequests(svc)).length;
    const v = updatesFor(svc, app);
    v.start();
    expect(await settle(v)).toMatchObject({ state: 'off', problem: 'they apply to the installed app only.' });
    expect((await feedRequests(svc)).length).toBe(before);
  });

  it('a new feed address while a check of the old one hangs ends that check and checks the new one at once', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const app = installedApp();
      const u = updatesFor(svc, app, { feedUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/feed` });
      u.start();
      expect(u.status.state).toBe('checking');
      const started = Date.now();
      u.setFeed(svc.info.updatesUrl);
      const s = await settle(u, 10_000);
      // The old check's deadline is 60 s: it did not hold the new one up, nor say anything after it.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(s).toMatchObject({ problem: null, state: expect.stringMatching(/^(idle|ready)$/) });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('follows a feed address set in Settings at once: checked then, and off again when emptied', async () => {
    const dead = `${svc.info.updatesUrl.replace(/\/updates$/, '')}/nowhere`;
    const app = installedApp();
    let timers = 0;
    const u = updatesFor(svc, app, { feedUrl: '', every: () => (timers++, () => void timers--) });
    u.start();
    expect(app.made).not.toHaveBeenCalled();
    u.setFeed(dead);
    expect(app.made).toHaveBeenCalledTimes(1);
    expect(timers).toBe(1);
    expect((await settle(u)).state).toBe('failed');
    u.setFeed('');
    expect(u.status).toMatchObject({ state: 'off', next: null, problem: null });
    expect(timers).toBe(0);
  });
});
