import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './service/testing.js';
import { startTestService, uploaderEnv } from './service/testing.js';

// Issue 17, deliverable 1 (second paragraph): the engine against an S3 implementation nobody here
// wrote. The local gateway keeps the files in s3rver (npm) instead of its own storage; a card goes
// through the real CLI and every object is read back from s3rver and hashed.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'main/cli/index.ts');
const fixture = (name: string) => fileURLToPath(new URL(`../../shared/fixtures/${name}`, import.meta.url));
const MiB = 1024 * 1024;
const BUCKET = 'site-captures';
// s3rver's one built-in account; it is a test double, so its key is no secret.
const KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

let work: string;
let s3rver: S3rver;
let endpoint: string;
let svc: TestService;
let reader: S3Client;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 's3rver-test-'));
  s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(work, 's3rver'), configureBuckets: [{ name: BUCKET, configs: [] }] });
  const addr = (await s3rver.run()) as AddressInfo;
  endpoint = `http://127.0.0.1:${addr.port}`;
  svc = await startTestService({ s3: { endpoint, bucket: BUCKET, region: 'us-east-1', ...KEYS } });
  reader = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: KEYS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
});
afterAll(async () => {
  reader?.destroy();
  await svc?.stop();
  await s3rver?.close();
  rmSync(work, { recursive: true, force: true });
});

function cli(dataDir: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...uploaderEnv(svc.info, dataDir), NODE_NO_WARNINGS: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('the local gateway over s3rver (issue 17 deliverable 1: an S3 implementation nobody here wrote)', () => {
  it('uploads a card through the CLI into s3rver: every object there has its source file’s bytes', async () => {
    // The card's recordings folder: the two real fixture recordings and a generated 12 MiB
    // recording (3 parts of 5 MiB).
    const card = join(work, 'card', 'DCIM', 'Camera01');
    mkdirSync(card, { recursive: true });
    copyFileSync(fixture('sample.insv'), join(card, 'sample.insv'));
    copyFileSync(fixture('walkthrough.mp4'), join(card, 'walkthrough.mp4'));
    writeFileSync(join(card, 'VID_20261123_080000_00_002.insv'), randomBytes(12 * MiB));
    const sources = new Map(['sample.insv', 'walkthrough.mp4', 'VID_20261123_080000_00_002.insv'].map((n) => [n, join(card, n)]));

    const dataDir = join(work, 'queue');
    const add = await cli(dataDir, ['add', '--structure', svc.info.structures[0]!, '--type', 'exterior', card]);
    expect(add.code, add.stderr).toBe(0);
    const drain = await cli(dataDir, ['drain']);
    expect(drain.code, drain.stderr).toBe(0);
    expect(drain.stdout).toContain('3 file(s) completed, 0 failed, 0 paused, 0 waiting to be sent.');

    // Nothing went to the built-in storage: the parts were PUT to s3rver's presigned URLs.
    expect(svc.storage.stats.partsStored).toBe(0);
    const uploads = Object.values(svc.store.state.uploads);
    expect(uploads.map((u) => u.fileName).sort()).toEqual([...sources.keys()].sort());
    expect(uploads.find((u) => u.fileName === 'VID_20261123_080000_00_002.insv')!.totalParts).toBe(3);
    for (const u of uploads) {
      expect(u.status).toBe('completed');
      const got = await reader.send(new GetObjectCommand({ Bucket: BUCKET, Key: u.key }));
      const bytes = Buffer.from(await got.Body!.transformToByteArray());
      expect({ file: u.fileName, size: bytes.length, sha256: sha256(bytes) }).toEqual({
        file: u.fileName,
        size: u.size,
        sha256: sha256(readFileSync(sources.get(basename(u.fileName))!)),
      });
    }
  });
});
