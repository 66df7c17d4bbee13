import { createHash, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Metadata, MetadataKind, Targets, TargetFile } from '@tufjs/models';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestService } from '../../e2e/service/testing.js';
import {
  feedFolders,
  feedRequests,
  publishUpdate,
  setFeedFaults,
  startTestService,
} from '../../e2e/service/testing.js';
import { findKeys, signer } from '../../scripts/release-sign/keys.js';
import {
  addRelease,
  initRepository,
  readRepository,
  refreshRepository,
  rotateKeys,
} from '../../scripts/release-sign/repository.js';
import { writeBuilderOutput } from '../../scripts/release-sign/builder-output.js';
import type { InstalledApp } from '../testing/updater-kit.js';
import { installedApp, pinRoot, settle, updatesFor } from '../testing/updater-kit.js';
import type { UpdatesOptions } from './updates.js';

// The attacks The Update Framework names, each tried against the local service's signed feed
// (docs/desktop-app.md, "What the feed cannot make the app do", has the table): the attacker
// writes into the feed's folder (anyone with write access to the share or bucket), misbehaves
// as the feed or a mirror (the feed's faults), or holds stolen keys. Each test checks what the
// app did: the status and its words, what electron-updater holds for the install (nothing), and
// what was read. Deadlines are shortened; FEED_LIMITS and CHECK_DEADLINE_MS give the app's own.
let svc: TestService;
beforeEach(async () => {
  svc = await startTestService();
});
afterEach(async () => {
  await svc.stop();
});

const APP_ID = 'com.captureuploader.desktop';
/** Deadlines a test can wait out: a check ends within 1.5 s, a download on 0.8 s of silence or below 256 KiB/s. */
const fast: Partial<UpdatesOptions> = {
  checkDeadlineMs: 1500,
  limits: { silenceMs: 800, graceMs: 800, minBytesPerSecond: 256 * 1024 },
};
const deb = (v: string) => `capture-uploader_${v}_amd64.deb`;
const release = (v: string, bytes = 64 * 1024) =>
  publishUpdate(svc, { version: v, fileName: deb(v), content: randomBytes(bytes) });

/** Starts updates for `app` and waits for its status to settle. */
async function check(app: InstalledApp, opts: Partial<UpdatesOptions> = {}) {
  const u = updatesFor(svc, app, { ...fast, ...opts });
  u.start();
  return { u, status: await settle(u) };
}

/** What the feed's folder holds now: its repository and keys. */
const feed = () => feedFolders(svc);
const metadata = (name: string) => join(feed().repo, 'metadata', name);
const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

/**
 * What an attacker holding some of the keys (files of the feed's key folder whose names start
 * with `stolen`'s entries) writes: the targets changed by `change`, then snapshot and timestamp
 * naming them, each signed with the stolen keys of its role only.
 */
function forge(stolen: string[], change: (t: Targets) => void): void {
  const keys = (role: string) =>
    findKeys(role as never, { dir: feed().keys }).filter((k) =>
      stolen.some((s) => k.source.endsWith(`/${s}`) || k.source.includes(`/${s}-`)),
    );
  const state = readRepository(feed().repo);
  const t = state.targets.signed;
  const targets = new Metadata(
    new Targets({ version: t.version + 1, specVersion: t.specVersion, expires: t.expires, targets: { ...t.targets } }),
  );
  change(targets.signed);
  for (const k of keys('targets')) targets.sign(signer(k));
  const targetsJson = `${JSON.stringify(targets.toJSON())}\n`;
  writeFileSync(metadata(`${targets.signed.version}.targets.json`), targetsJson);
  const snap = readJson(metadata(`${state.snapshot.signed.version}.snapshot.json`)) as {
    signed: Record<string, unknown>;
    signatures: unknown[];
  };
  const info = (s: string) => ({
    length: Buffer.byteLength(s),
    hashes: {
      sha256: createHash('sha256').update(s).digest('hex'),
      sha512: createHash('sha512').update(s).digest('hex'),
    },
  });
  const snapshot = Metadata.fromJSON(MetadataKind.Snapshot, {
    signatures: [],
    signed: {
      ...snap.signed,
      version: state.snapshot.signed.version + 1,
      meta: { 'targets.json': { version: targets.signed.version, ...info(targetsJson) } },
    },
  } as never);
  for (const k of keys('snapshot')) snapshot.sign(signer(k));
  const snapJson = `${JSON.stringify(snapshot.toJSON())}\n`;
  writeFileSync(metadata(`${state.snapshot.signed.version + 1}.snapshot.json`), snapJson);
  const ts = state.timestamp.signed;
  const timestamp = Metadata.fromJSON(MetadataKind.Timestamp, {
    signatures: [],
    signed: {
      _type: 'timestamp',
      spec_version: ts.specVersion,
      version: ts.version + 1,
      expires: ts.expires,
      meta: { 'snapshot.json': { version: state.snapshot.signed.version + 1, ...info(snapJson) } },
    },
  } as never);
  for (const k of keys('timestamp')) timestamp.sign(signer(k));
  writeFileSync(metadata('timestamp.json'), `${JSON.stringify(timestamp.toJSON())}\n`);
}

/** An installer of the attacker's as a target entry (its real length and hashes) and a file in the feed's targets. */
function evilTarget(name: string): TargetFile {
  const bytes = randomBytes(4096);
  const hashes = {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    sha512: createHash('sha512').update(bytes).digest('hex'),
  };
  writeFileSync(join(feed().repo, 'targets', `${hashes.sha256}.${name}`), bytes);
  return new TargetFile({
    path: name,
    length: bytes.length,
    hashes,
    unrecognizedFields: { custom: { appId: APP_ID, version: '9.9.9' } as never },
  });
}

/** Nothing is held for the install, nothing installs at quit. */
async function nothingInstalls(app: InstalledApp, u: { installOnQuit(): Promise<boolean> }) {
  expect(app.held()).toEqual([]);
  expect(await u.installOnQuit()).toBe(false);
  expect(app.quitAndInstall).not.toHaveBeenCalled();
}

describe('TUF’s attacks on the update feed', () => {
  it('arbitrary installation: an installer changed in the feed, or a release signed with other keys, is refused', async () => {
    const t = await release('0.2.0');
    // The installer replaced by another of the same length.
    writeFileSync(join(feed().repo, 'targets', `${t.sha256}.${t.path}`), randomBytes(t.length));
    const app = installedApp();
    const { u, status } = await check(app);
    expect(status).toMatchObject({ state: 'failed', next: '0.2.0' });
    expect(status.problem).toBe(
      'Version 0.2.0 could not be downloaded: a file of the feed does not match its signed length and hash.',
    );
    await nothingInstalls(app, u);
    expect(
      readdirSync(join(app.cacheDir, 'downloads')).filter((f) => f.endsWith('.deb') || f.endsWith('.partial')),
    ).toEqual([]);

    // A whole repository of the attacker's (version 9.9.9 and its installer, signed with keys of
    // its own) written over the feed's metadata and targets, its root included; the app has its own.
    const other = installedApp();
    pinRoot(svc, other);
    const evil = mkdtempSync(join(tmpdir(), 'evil-'));
    try {
      initRepository({ repo: join(evil, 'repo'), keys: { dir: join(evil, 'keys') }, keysDir: join(evil, 'keys') });
      writeBuilderOutput(join(evil, 'out'), {
        version: '9.9.9',
        files: [{ name: deb('9.9.9'), content: randomBytes(2048) }],
      });
      addRelease({
        repo: join(evil, 'repo'),
        from: join(evil, 'out'),
        keys: { dir: join(evil, 'keys') },
        appId: APP_ID,
      });
      cpSync(join(evil, 'repo'), feed().repo, { recursive: true });
    } finally {
      rmSync(evil, { recursive: true, force: true });
    }
    const second = await check(other);
    expect(second.status).toMatchObject({ state: 'failed', next: null });
    expect(second.status.problem).toBe(
      "Updates could not be checked: the feed's timestamp metadata are not signed by this app's publisher (0 of the 1 signatures needed).",
    );
    await nothingInstalls(other, second.u);
  });

  it('endless data: a body past its signed length is stopped at the length, metadata and installer alike', async () => {
    const t = await release('0.2.0', 256 * 1024);
    await setFeedFaults(svc, [{ match: '\\.deb$', action: { type: 'extend', bytes: 3 * 1024 ** 3 } }]);
    const app = installedApp();
    const { u, status } = await check(app);
    expect(status.problem).toBe(
      `Version 0.2.0 could not be downloaded: the feed sent more of ${t.path} than the ${256 * 1024} bytes it may have: stopped there.`,
    );
    const sent = (await feedRequests(svc)).find((r) => r.path.endsWith('.deb'))!.bytesSent;
    expect(sent).toBeLessThan(64 * 1024 * 1024);
    expect(readdirSync(join(app.cacheDir, 'downloads')).filter((f) => !f.endsWith('.yml'))).toEqual([]);
    await nothingInstalls(app, u);
    // The timestamp has no signed length: tuf-js's cap for it (16 KiB) holds.
    await setFeedFaults(svc, [{ match: 'timestamp\\.json$', action: { type: 'extend', bytes: 3 * 1024 ** 3 } }]);
    const again = await check(installedApp());
    expect(again.status.problem).toBe(
      'Updates could not be checked: the feed sent more of metadata/timestamp.json than the 16384 bytes it may have: stopped there.',
    );
  });

  it('extraneous dependencies: a channel file changed to name another program is refused, and that program is never fetched', async () => {
    await release('0.2.0');
    const ymlFile = readdirSync(join(feed().repo, 'targets')).find((f) => f.endsWith('.latest-linux.yml'))!;
    const yml = readFileSync(join(feed().repo, 'targets', ymlFile), 'utf8');
    writeFileSync(join(feed().repo, 'targets', 'helper.deb'), randomBytes(1000));
    writeFileSync(
      join(feed().repo, 'targets', ymlFile),
      yml.replace('files:\n', 'files:\n  - url: "helper.deb"\n    sha512: "x"\n    size: 1000\n'),
    );
    const app = installedApp();
    const { u, status } = await check(app);
    expect(status.problem).toMatch(
      /^Updates could not be checked: the feed sent more of latest-linux\.yml than the \d+ bytes it may have: stopped there\.$/,
    );
    expect((await feedRequests(svc)).map((r) => r.path).filter((p) => p.includes('helper'))).toEqual([]);
    // Changed within its length (the version swapped for another): its hash gives it away.
    writeFileSync(join(feed().repo, 'targets', ymlFile), yml.replace('version: "0.2.0"', 'version: "0.2.9"'));
    expect((await check(installedApp())).status.problem).toBe(
      'Updates could not be checked: a file of the feed does not match its signed length and hash.',
    );
    await nothingInstalls(app, u);
  });

  it('fast-forward: a timestamp pushed to version 1,000,000 with a stolen key stops updates until the key is rotated, then they resume', async () => {
    await release('0.2.0');
    const legit = readFileSync(metadata('timestamp.json'));
    const stolen = findKeys('timestamp', { dir: feed().keys })[0]!;
    const ts = readJson(metadata('timestamp.json')) as { signed: Record<string, unknown> };
    const forged = Metadata.fromJSON(MetadataKind.Timestamp, {
      signatures: [],
      signed: { ...ts.signed, version: 1_000_000 },
    } as never);
    forged.sign(signer(stolen));
    writeFileSync(metadata('timestamp.json'), JSON.stringify(forged.toJSON()));
    const app = installedApp();
    // Validly signed: accepted, and kept as the newest timestamp this computer has seen.
    expect((await check(app)).status).toMatchObject({ state: 'ready', next: '0.2.0' });
    // The publisher's next release, signed from its own copy of the repository (timestamp
    // version 3), now looks like a rollback.
    writeFileSync(metadata('timestamp.json'), legit);
    await release('0.3.0');
    const stuck = await check(installedApp(app));
    expect(stuck.status.problem).toBe(
      'Updates could not be checked: the feed offers older or mismatched metadata than this computer has seen (New timestamp version 3 is less than current version 1000000).',
    );
    // The publisher rotates the timestamp key: root version 2 lists the new one, signed by the root key.
    rotateKeys({ repo: feed().repo, role: 'timestamp', keys: { dir: feed().keys }, keysDir: feed().keys });
    const resumed = await check(installedApp(app));
    expect(resumed.status).toMatchObject({ state: 'ready', next: '0.3.0' });
  });

  it('indefinite freeze: an expired timestamp is "updates could not be checked: the feed is out of date", and nothing is installed', async () => {
    await release('0.2.0');
    // Signed three days ago for one day: a feed frozen at what it once said.
    refreshRepository({
      repo: feed().repo,
      keys: { dir: feed().keys },
      now: () => new Date(Date.now() - 3 * 86_400_000),
      expiryDays: { timestamp: 1 },
    });
    const app = installedApp();
    const { u, status } = await check(app);
    expect(status).toMatchObject({ state: 'failed', next: null });
    expect(status.problem).toBe(
      'Updates could not be checked: the feed is out of date (its signed metadata have expired).',
    );
    await nothingInstalls(app, u);
  });

  it('malicious mirrors: a redirect to another host is refused, for metadata and installer alike', async () => {
    await release('0.2.0');
    const elsewhere = svc.info.updatesUrl.replace('127.0.0.1', 'localhost');
    const host = new URL(elsewhere).host;
    await setFeedFaults(svc, [{ match: 'timestamp\\.json$', action: { type: 'redirect', to: elsewhere } }]);
    const first = await check(installedApp());
    expect(first.status.problem).toBe(
      `Updates could not be checked: the feed redirected metadata/timestamp.json to ${host}, which is not the feed's address: not followed.`,
    );
    await setFeedFaults(svc, [{ match: '\\.deb$', action: { type: 'redirect', to: elsewhere } }]);
    const app = installedApp();
    const { u, status } = await check(app);
    expect(status.problem).toBe(
      `Version 0.2.0 could not be downloaded: the feed redirected ${deb('0.2.0')} to ${host}, which is not the feed's address: not followed.`,
    );
    await nothingInstalls(app, u);
    // Nothing was asked of the other host (the same service under another name).
    expect((await feedRequests(svc)).filter((r) => r.path.endsWith('.deb'))).toHaveLength(1);
  });

  it('mix-and-match: the newest snapshot served with an older release’s targets is refused', async () => {
    await release('0.2.0');
    await release('0.3.0');
    const { targets } = readRepository(feed().repo);
    const v = targets.signed.version;
    writeFileSync(metadata(`${v}.targets.json`), readFileSync(metadata(`${v - 1}.targets.json`)));
    const app = installedApp();
    const { u, status } = await check(app);
    expect(status.problem).toBe(
      'Updates could not be checked: a file of the feed does not match its signed length and hash.',
    );
    await nothingInstalls(app, u);
  });

  it('rollback: metadata older than what this computer has seen are refused; an older version is not downloaded', async () => {
    await release('0.2.0');
    const old = readFileSync(metadata('timestamp.json'));
    await release('0.3.0');
    const app = installedApp();
    expect((await check(app)).status).toMatchObject({ state: 'ready', next: '0.3.0' });
    // The feed (or someone in between) answers with the timestamp of the release before.
    writeFileSync(metadata('timestamp.json'), old);
    const restarted = installedApp(app);
    const again = await check(restarted);
    expect(again.status.problem).toBe(
      'Updates could not be checked: the feed offers older or mismatched metadata than this computer has seen (New timestamp version 2 is less than current version 3).',
    );
    await nothingInstalls(restarted, again.u);

    // A signed feed whose newest release is older than the running 0.1.0: electron-updater does
    // not downgrade (allowDowngrade off), so nothing is downloaded.
    const older = await startTestService();
    try {
      await publishUpdate(older, { version: '0.0.9', fileName: deb('0.0.9'), content: randomBytes(1024) });
      const fresh = installedApp();
      const u = updatesFor(older, fresh, fast);
      u.start();
      expect(await settle(u)).toMatchObject({ state: 'idle', next: null });
      expect((await feedRequests(older)).filter((r) => r.path.endsWith('.deb'))).toEqual([]);
      await nothingInstalls(fresh, u);
    } finally {
      await older.stop();
    }
  });

  it('slow retrieval: a feed that never answers ends each check at its deadline, every daily check asks again; an installer at a crawl is given up', async () => {
    await release('0.2.0');
    await setFeedFaults(svc, [{ match: 'timestamp\\.json$', action: { type: 'hang' } }]);
    let daily: () => void = () => {};
    const app = installedApp();
    // The check's own deadline speaks here (its requests' silence bound is set longer).
    const u = updatesFor(svc, app, {
      ...fast,
      limits: { ...fast.limits, silenceMs: 10_000, graceMs: 10_000 },
      every: (_ms, fn) => ((daily = fn), () => {}),
    });
    const ended: number[] = [];
    u.start();
    for (let i = 0; i < 5; i++) {
      if (i > 0) daily();
      const started = Date.now();
      const s = await settle(u, 5000);
      ended.push(Date.now() - started);
      expect(s.problem).toBe('Updates could not be checked: the feed did not answer within 1.5 s.');
    }
    // Five daily checks, five requests: none joined a stuck one, each ended by its deadline.
    expect((await feedRequests(svc)).filter((r) => r.path === 'metadata/timestamp.json')).toHaveLength(5);
    for (const ms of ended) expect(ms).toBeLessThan(3000);
    // An installer sent at 1 byte a second: given up, and tried again at the next check.
    await setFeedFaults(svc, [{ match: '\\.deb$', action: { type: 'trickle', bytesPerSecond: 1 } }]);
    const v = updatesFor(svc, app, { ...fast, every: (_ms, fn) => ((daily = fn), () => {}) });
    v.start();
    const crawl = await settle(v, 10_000);
    expect(crawl.problem).toMatch(
      /^Version 0\.2\.0 could not be downloaded: the feed sent capture-uploader_0\.2\.0_amd64\.deb slower than 256 KiB\/s: given up after \d+(\.\d)? s\.$/,
    );
    await setFeedFaults(svc, []);
    daily();
    expect(await settle(v)).toMatchObject({ state: 'ready', next: '0.2.0' });
  });

  it('wrong software: a release signed for another app is refused', async () => {
    await publishUpdate(svc, {
      version: '0.2.0',
      fileName: 'other-app_0.2.0_amd64.deb',
      content: randomBytes(1024),
      appId: 'com.example.other',
    });
    const app = installedApp();
    const { u, status } = await check(app);
    expect(status.problem).toBe(
      "Updates could not be checked: the feed's latest-linux.yml is signed for another app (com.example.other), not com.captureuploader.desktop.",
    );
    expect((await feedRequests(svc)).filter((r) => r.path.endsWith('.deb'))).toEqual([]);
    await nothingInstalls(app, u);
  });

  it('a key compromised below the threshold: targets of two keys, threshold 2, changed with one stolen key, are refused', async () => {
    // A feed whose targets need both of its two keys.
    await svc.stop();
    const dataDir = mkdtempSync(join(tmpdir(), 'threshold-feed-'));
    const keys = join(dataDir, 'update-keys');
    initRepository({ repo: join(dataDir, 'updates'), keys: { dir: keys }, keysDir: keys, thresholds: { targets: 2 } });
    svc = await startTestService({ dataDir });
    await release('0.2.0');
    const [one] = readdirSync(keys).filter((k) => k.startsWith('targets-'));
    // The attacker has one targets key and the online snapshot and timestamp keys.
    forge([one!, 'snapshot', 'timestamp'], (t) => {
      const evil = evilTarget(deb('9.9.9'));
      t.targets[evil.path] = evil;
    });
    const app = installedApp();
    const { u, status } = await check(app);
    expect(status.problem).toBe(
      "Updates could not be checked: the feed's targets metadata are not signed by this app's publisher (1 of the 2 signatures needed).",
    );
    await nothingInstalls(app, u);
  });
});
