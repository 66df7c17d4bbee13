import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { writeBuilderOutput } from './builder-output.js';
import { findKeys, keyEnvName } from './keys.js';
import {
  addRelease,
  compareVersions,
  initRepository,
  readRepository,
  refreshRepository,
  rotateKeys,
} from './repository.js';

// The publisher's side of signed updates: repositories made and updated from electron-builder's
// output, checked here as the publisher's own read-back (readRepository verifies as a client does);
// main/updates/ tests the app reading them.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'release-sign-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const fresh = () => {
  const base = join(work, String(n++));
  return { repo: join(base, 'feed'), keysDir: join(base, 'keys'), out: join(base, 'release'), base };
};
const APP = 'com.captureuploader.desktop';

describe('release:sign', () => {
  it('init makes a repository whose root the app pins, with one key per role written 0600', () => {
    const f = fresh();
    const appRoot = join(f.base, 'update-root.json');
    const made = initRepository({ repo: f.repo, keys: { dir: f.keysDir }, keysDir: f.keysDir, appRoot });
    expect(
      made.keyFiles.map((p) =>
        p
          .split('/')
          .pop()!
          .replace(/-[0-9a-f]{8}\.pem$/, ''),
      ),
    ).toEqual(['root', 'targets', 'snapshot', 'timestamp']);
    for (const k of made.keyFiles) expect(statSync(k).mode & 0o777).toBe(0o600);
    expect(readFileSync(appRoot, 'utf8')).toBe(readFileSync(join(f.repo, 'metadata', '1.root.json'), 'utf8'));
    const state = readRepository(f.repo);
    expect(state.root.signed.consistentSnapshot).toBe(true);
    expect(Object.keys(state.targets.signed.targets)).toEqual([]);
    expect(state.timestamp.signed.version).toBe(1);
    // Made again over it: refused, nothing replaced.
    expect(() => initRepository({ repo: f.repo, keys: { dir: f.keysDir }, keysDir: f.keysDir })).toThrow(
      /already holds an update repository/,
    );
  });

  it('add signs the channel files and the installers they name, copied under their hash, and refuses what does not add up', () => {
    const f = fresh();
    initRepository({ repo: f.repo, keys: { dir: f.keysDir }, keysDir: f.keysDir });
    const deb = randomBytes(10_000);
    writeBuilderOutput(f.out, {
      version: '0.2.0',
      files: [{ name: 'capture-uploader-0.2.0-amd64.deb', content: deb }],
      channels: ['latest-linux.yml'],
    });
    expect(addRelease({ repo: f.repo, from: f.out, keys: { dir: f.keysDir }, appId: APP })).toEqual({
      version: '0.2.0',
      targets: ['capture-uploader-0.2.0-amd64.deb', 'latest-linux.yml'],
    });
    const { targets, snapshot, timestamp } = readRepository(f.repo);
    const t = targets.signed.targets['capture-uploader-0.2.0-amd64.deb']!;
    expect(t.length).toBe(10_000);
    expect(t.hashes.sha512).toBe(createHash('sha512').update(deb).digest('hex'));
    expect(t.custom).toEqual({ appId: APP, version: '0.2.0' });
    expect(targets.signed.targets['latest-linux.yml']!.custom).toEqual({
      appId: APP,
      version: '0.2.0',
      installers: ['capture-uploader-0.2.0-amd64.deb'],
    });
    expect(readFileSync(join(f.repo, 'targets', `${t.hashes.sha256}.capture-uploader-0.2.0-amd64.deb`))).toEqual(deb);
    expect([targets.signed.version, snapshot.signed.version, timestamp.signed.version]).toEqual([2, 2, 2]);

    // The same version again, or an older one: refused before anything is written.
    const before = readdirSync(join(f.repo, 'metadata')).sort();
    expect(() => addRelease({ repo: f.repo, from: f.out, keys: { dir: f.keysDir }, appId: APP })).toThrow(
      /latest-linux\.yml: version 0\.2\.0 is not newer than 0\.2\.0, already published/,
    );
    // A channel file whose hash is not its installer's.
    const bad = join(f.base, 'bad');
    writeBuilderOutput(bad, {
      version: '0.3.0',
      files: [{ name: 'capture-uploader-0.3.0-amd64.deb', content: randomBytes(100) }],
      channels: ['latest-linux.yml'],
      statedSha512: 'bm90IHRoZSBoYXNo',
    });
    expect(() => addRelease({ repo: f.repo, from: bad, keys: { dir: f.keysDir }, appId: APP })).toThrow(
      /states a SHA-512 or size for capture-uploader-0\.3\.0-amd64\.deb its bytes do not have/,
    );
    // A name a web address would escape.
    const spaced = join(f.base, 'spaced');
    writeBuilderOutput(spaced, {
      version: '0.3.0',
      files: [{ name: 'Capture Uploader-0.3.0.AppImage', content: randomBytes(100) }],
      channels: ['latest-linux.yml'],
    });
    expect(() => addRelease({ repo: f.repo, from: spaced, keys: { dir: f.keysDir }, appId: APP })).toThrow(
      /artifactName without them/,
    );
    // Without the timestamp key: refused, naming where keys are looked for, nothing written.
    const partial = join(f.base, 'partial-keys');
    execFileSync('mkdir', ['-p', partial]);
    for (const k of readdirSync(f.keysDir).filter((k) => !k.startsWith('timestamp')))
      writeFileSync(join(partial, k), readFileSync(join(f.keysDir, k)));
    const next = join(f.base, 'next');
    writeBuilderOutput(next, {
      version: '0.3.0',
      files: [{ name: 'capture-uploader-0.3.0-amd64.deb', content: randomBytes(100) }],
      channels: ['latest-linux.yml'],
    });
    expect(() => addRelease({ repo: f.repo, from: next, keys: { dir: partial }, appId: APP })).toThrow(
      /^timestamp metadata needs 1 signature\(s\) of the keys root version 1 lists for it; 0 of those keys were found \(looked in .*timestamp\*\.pem and CAPTURE_UPDATE_TIMESTAMP_KEY\)/,
    );
    expect(readdirSync(join(f.repo, 'metadata')).sort()).toEqual(before);
    expect(readRepository(f.repo).timestamp.signed.version).toBe(2);

    // The next release replaces the older one's targets.
    addRelease({ repo: f.repo, from: next, keys: { dir: f.keysDir }, appId: APP });
    expect(Object.keys(readRepository(f.repo).targets.signed.targets).sort()).toEqual([
      'capture-uploader-0.3.0-amd64.deb',
      'latest-linux.yml',
    ]);
  });

  it('takes its keys from environment variables alone, as a signing job would', () => {
    const f = fresh();
    initRepository({ repo: f.repo, keys: { dir: f.keysDir }, keysDir: f.keysDir });
    const env: Record<string, string> = {};
    for (const role of ['targets', 'snapshot', 'timestamp'] as const)
      env[keyEnvName(role)] = readdirSync(f.keysDir)
        .filter((k) => k.startsWith(role))
        .map((k) => readFileSync(join(f.keysDir, k), 'utf8'))
        .join('');
    writeBuilderOutput(f.out, {
      version: '1.0.0',
      files: [{ name: 'capture-uploader-setup-1.0.0.exe', content: randomBytes(50) }],
      channels: ['latest.yml'],
    });
    expect(addRelease({ repo: f.repo, from: f.out, keys: { env }, appId: APP }).version).toBe('1.0.0');
    expect(() => findKeys('targets', { env: { [keyEnvName('targets')]: 'not a key' } })).toThrow(
      /^CAPTURE_UPDATE_TARGETS_KEY: holds no PEM private key/,
    );
  });

  it('a targets role of two keys with threshold 2 is not signed with one of them', () => {
    const f = fresh();
    initRepository({ repo: f.repo, keys: { dir: f.keysDir }, keysDir: f.keysDir, thresholds: { targets: 2 } });
    expect(readRepository(f.repo).root.signed.roles.targets).toMatchObject({ threshold: 2 });
    const one = join(f.base, 'one-targets-key');
    execFileSync('mkdir', ['-p', one]);
    const targetsKeys = readdirSync(f.keysDir).filter((k) => k.startsWith('targets-'));
    expect(targetsKeys).toHaveLength(2);
    for (const k of readdirSync(f.keysDir).filter((k) => k !== targetsKeys[1]))
      writeFileSync(join(one, k), readFileSync(join(f.keysDir, k)));
    writeBuilderOutput(f.out, {
      version: '0.2.0',
      files: [{ name: 'capture-uploader-0.2.0-amd64.deb', content: randomBytes(50) }],
      channels: ['latest-linux.yml'],
    });
    expect(() => addRelease({ repo: f.repo, from: f.out, keys: { dir: one }, appId: APP })).toThrow(
      /^targets metadata needs 2 signature\(s\) .*; 1 of those keys were found/,
    );
    addRelease({ repo: f.repo, from: f.out, keys: { dir: f.keysDir }, appId: APP });
    expect(Object.keys(readRepository(f.repo).targets.signatures)).toHaveLength(2);
  });

  it('rotate writes a new root signed by the old root key and the new one, and signs again what the new key covers', () => {
    const f = fresh();
    initRepository({ repo: f.repo, keys: { dir: f.keysDir }, keysDir: f.keysDir });
    const oldRoot = readRepository(f.repo).root.signed;
    const r = rotateKeys({ repo: f.repo, role: 'timestamp', keys: { dir: f.keysDir }, keysDir: f.keysDir });
    expect(r.rootVersion).toBe(2);
    expect(r.retired).toEqual([expect.stringMatching(/timestamp-[0-9a-f]{8}\.pem$/)]);
    const state = readRepository(f.repo);
    expect(state.root.signed.roles.timestamp!.keyIDs).not.toEqual(oldRoot.roles.timestamp!.keyIDs);
    expect(Object.keys(state.timestamp.signatures)).toEqual(state.root.signed.roles.timestamp!.keyIDs);
    // A new root key: 3.root.json carries the old root key's signature and the new one's.
    rotateKeys({ repo: f.repo, role: 'root', keys: { dir: f.keysDir }, keysDir: f.keysDir });
    const third = JSON.parse(readFileSync(join(f.repo, 'metadata', '3.root.json'), 'utf8')) as {
      signatures: { keyid: string }[];
      signed: { roles: { root: { keyids: string[] } } };
    };
    expect(third.signatures.map((s) => s.keyid).sort()).toEqual(
      [...oldRoot.roles.root!.keyIDs, ...third.signed.roles.root.keyids].sort(),
    );
    expect(readRepository(f.repo).root.signed.version).toBe(3);
    // Without the old root key the new root cannot be made.
    const noRoot = join(f.base, 'no-root');
    execFileSync('mkdir', ['-p', noRoot]);
    expect(() => rotateKeys({ repo: f.repo, role: 'targets', keys: { dir: noRoot }, keysDir: noRoot })).toThrow(
      /^The new root must be signed by 1 key\(s\) of root version 3; 0 were found/,
    );
    expect(existsSync(join(f.repo, 'metadata', '4.root.json'))).toBe(false);
  });

  it('refresh signs a new timestamp with the timestamp key alone', () => {
    const f = fresh();
    initRepository({ repo: f.repo, keys: { dir: f.keysDir }, keysDir: f.keysDir });
    const only = join(f.base, 'timestamp-only');
    execFileSync('mkdir', ['-p', only]);
    for (const k of readdirSync(f.keysDir).filter((k) => k.startsWith('timestamp')))
      writeFileSync(join(only, k), readFileSync(join(f.keysDir, k)));
    const later = new Date(Date.now() + 20 * 86_400_000);
    const s = refreshRepository({ repo: f.repo, keys: { dir: only }, now: () => later });
    expect(s.timestamp.signed.version).toBe(2);
    expect(Date.parse(s.timestamp.signed.expires) - later.getTime()).toBeGreaterThan(29 * 86_400_000);
    expect(() => refreshRepository({ repo: f.repo, keys: { dir: only }, roles: ['snapshot'] })).toThrow(
      /^snapshot metadata needs 1 signature/,
    );
  });

  it('a repository changed by someone without the keys is not signed on top of', () => {
    const f = fresh();
    initRepository({ repo: f.repo, keys: { dir: f.keysDir }, keysDir: f.keysDir });
    const file = join(f.repo, 'metadata', '1.targets.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { signed: { expires: string } };
    doc.signed.expires = '2099-01-01T00:00:00Z';
    writeFileSync(file, JSON.stringify(doc));
    expect(() => readRepository(f.repo)).toThrow(/1\.targets\.json does not verify: .*Restore the repository/);
  });

  it('orders versions as semver does', () => {
    const ordered = [
      '0.1.0',
      '0.1.1',
      '0.2.0-alpha',
      '0.2.0-alpha.1',
      '0.2.0-beta',
      '0.2.0-rc.2',
      '0.2.0-rc.10',
      '0.2.0',
      '0.10.0',
      '1.0.0',
    ];
    for (let i = 0; i + 1 < ordered.length; i++) {
      expect(compareVersions(ordered[i]!, ordered[i + 1]!), `${ordered[i]} < ${ordered[i + 1]}`).toBeLessThan(0);
      expect(compareVersions(ordered[i + 1]!, ordered[i]!)).toBeGreaterThan(0);
    }
    expect(compareVersions('1.2.3', '1.2.3+build.5')).toBe(0);
  });

  it('runs as npm run release:sign: init then add, one line per failure', () => {
    const f = fresh();
    const run = (...args: string[]) =>
      execFileSync('npx', ['tsx', 'scripts/release-sign/cli.ts', ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: 'pipe',
      });
    expect(run('init', '--repo', f.repo, '--keys', f.keysDir, '--app-root', join(f.base, 'root.json'))).toMatch(
      /Move the root key offline now/,
    );
    writeBuilderOutput(f.out, {
      version: '0.2.0',
      files: [{ name: 'capture-uploader-0.2.0-amd64.deb', content: randomBytes(64) }],
      channels: ['latest-linux.yml'],
    });
    expect(run('add', '--repo', f.repo, '--from', f.out, '--keys', f.keysDir)).toMatch(
      /^Signed version 0\.2\.0 into .*: capture-uploader-0\.2\.0-amd64\.deb, latest-linux\.yml\./,
    );
    let failure: { status?: number; stderr?: string } = {};
    try {
      run('add', '--repo', f.repo, '--from', f.out, '--keys', f.keysDir);
    } catch (err) {
      failure = err as typeof failure;
    }
    expect(failure.status).toBe(1);
    expect(failure.stderr).toMatch(/^release:sign: latest-linux\.yml: version 0\.2\.0 is not newer than 0\.2\.0/);
  });
});
