import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './service/testing.js';
import type { LocalServiceInfo } from './service/index.js';
import { startTestService } from './service/testing.js';
import { sha256 } from '../main/testing/kit.js';
import {
  addExterior,
  cli,
  expectObjectsAreSources,
  fixture,
  queuedResumeCard,
  slowDrain,
  writeContractCard,
} from './s3-contract.js';

// Deliverable 1 (second paragraph): the engine against an S3 implementation nobody here
// wrote. The local gateway keeps the files in s3rver (npm) instead of its own storage; a card goes
// through the real CLI and every object is read back from s3rver and hashed.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVICE_CLI = join(ROOT, 'e2e/service/cli.ts');
const BUCKET = 'site-captures';
// s3rver's one built-in account; it is a test double, so its key is no secret.
const KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

let work: string;
let s3rverServer: Server;
let endpoint: string;
/** Observers of every request s3rver gets (they never answer it). */
const watchers = new Set<(req: IncomingMessage, res: ServerResponse) => void>();
let svc: TestService;
let reader: S3Client;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 's3rver-test-'));
  // s3rver's own run(), on a server of this test's so that a test can watch what s3rver answers.
  const s3rver = new S3rver({
    silent: true,
    directory: join(work, 's3rver'),
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  await s3rver.configureBuckets();
  const handle = s3rver.callback();
  s3rverServer = createServer((req, res) => {
    for (const w of watchers) w(req, res);
    handle(req, res);
  });
  await new Promise<void>((resolve) => s3rverServer.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(s3rverServer.address() as AddressInfo).port}`;
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
  s3rverServer?.closeAllConnections();
  await new Promise((resolve) => s3rverServer?.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

/** The object s3rver holds under `key`, read back in full. */
async function read(key: string): Promise<Buffer> {
  const got = await reader.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await got.Body!.transformToByteArray());
}

describe('the local gateway over s3rver (an S3 implementation nobody here wrote)', () => {
  it('uploads a card through the CLI into s3rver: every object there has its source file’s bytes', async () => {
    // The card's recordings folder: the two real fixture recordings and a generated 12 MiB
    // recording (3 parts of 5 MiB).
    const { card, sources } = writeContractCard(work);
    const dataDir = join(work, 'queue');
    await addExterior(svc.info, dataDir, card);
    // Every part s3rver stored (answered 200 to), by storage upload id and part number.
    const stored = new Map<string, number>();
    const watch = (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', endpoint);
      if (req.method !== 'PUT' || !url.searchParams.has('partNumber')) return;
      const part = `${url.searchParams.get('uploadId')}#${url.searchParams.get('partNumber')}`;
      res.on('finish', () => res.statusCode === 200 && stored.set(part, (stored.get(part) ?? 0) + 1));
    };
    watchers.add(watch);
    const drain = await cli(svc.info, dataDir, ['drain']).finally(() => watchers.delete(watch));
    expect(drain.code, drain.stderr).toBe(0);
    expect(drain.stdout).toContain('3 file(s) completed, 0 failed, 0 paused, 0 waiting to be sent.');

    // Nothing went to the built-in storage: the parts were PUT to s3rver's presigned URLs.
    expect(svc.storage.stats.partsStored).toBe(0);
    const uploads = Object.values(svc.store.state.uploads);
    expect(uploads.map((u) => u.fileName).sort()).toEqual([...sources.keys()].sort());
    expect(uploads.find((u) => u.fileName === 'VID_20261123_080000_00_002.insv')!.totalParts).toBe(3);
    // Each part went once, straight to s3rver.
    const expected = uploads.flatMap((u) =>
      Array.from({ length: u.totalParts }, (_, i) => `${u.storageUploadId}#${i + 1}`),
    );
    expect([...stored.entries()].sort()).toEqual(expected.map((p) => [p, 1]).sort());
    await expectObjectsAreSources(uploads, sources, read);
  });
});

describe('a drain over s3rver stopped with parts stored', () => {
  it('resumes with the next drain, sends every part s3rver did not have, and stores the whole file', async () => {
    const { file, dataDir } = await queuedResumeCard(svc.info, work); // 5 parts
    const upload = Object.values(svc.store.state.uploads).find((u) => u.fileName === basename(file))!;

    // Which parts s3rver stored (answered 200 to), seen from its own listener.
    const stored: number[] = [];
    const watch = (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', endpoint);
      if (req.method !== 'PUT' || url.searchParams.get('uploadId') !== upload.storageUploadId) return;
      res.on('finish', () => res.statusCode === 200 && stored.push(Number(url.searchParams.get('partNumber'))));
    };
    watchers.add(watch);
    try {
      const { child, done } = slowDrain(svc.info, dataDir);
      const exited = done.then((r) => r.code);
      for (let i = 0; i < 1200 && stored.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      // Time for the uploader to read the 200 it was sent before it is stopped.
      await new Promise((r) => setTimeout(r, 500));
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      const before = [...stored];
      expect(before.length).toBeGreaterThan(0);
      expect(before.length).toBeLessThan(upload.totalParts);

      const drain = await cli(svc.info, dataDir, ['drain']);
      expect(drain.code, drain.stderr).toBe(0);
      expect(drain.stdout).toContain('1 file(s) completed, 0 failed');
      // The parts stored before the stop may go again: the engine reports ETags in one complete-batch
      // at the end, and a gateway that cannot list parts hands out every part not reported to it.
      const after = new Set(stored.slice(before.length));
      expect([1, 2, 3, 4, 5].filter((n) => !before.includes(n) && !after.has(n))).toEqual([]);
    } finally {
      watchers.delete(watch);
    }
    expect(sha256(await read(upload.key))).toBe(sha256(readFileSync(file)));
  });
});

/** `npm run service` as a person starts it: resolves at its ready line, or when it exits first. */
function serviceCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVICE_CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, NODE_NO_WARNINGS: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<{ line?: string; code?: number | null }>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = /^capture-service ready .*$/m.exec(stdout)?.[0];
      if (line) resolve({ line });
    });
    void exited.then((code) => resolve({ code }));
  });
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}

/**
 * The service's command line: its data folder `work/<dataDir>`, then `--s3-<option> <value>` for
 * each of `s3` (endpoint, bucket, access-key, secret-key), in the order given.
 */
const serviceArgs = (dataDir: string, s3: Record<string, string>): string[] => [
  '--data-dir',
  join(work, dataDir),
  ...Object.entries(s3).flatMap(([option, value]) => [`--s3-${option}`, value]),
];

describe('npm run service --s3-endpoint … (the local service over another S3 storage)', () => {
  it('keeps the files there, and its ready line leaves out the secret key given to it', async () => {
    const secret = `secret-${randomBytes(8).toString('hex')}`; // s3rver checks only the key id
    const run = serviceCli(
      serviceArgs('cli-service', { endpoint: `${endpoint}/`, bucket: BUCKET, 'access-key': 'S3RVER' }),
      {
        CAPTURE_SERVICE_S3_SECRET_KEY: secret,
      },
    );
    try {
      const { line } = await run.ready;
      expect(line, run.output().stderr).toBeDefined();
      const info = JSON.parse(line!.slice('capture-service ready '.length)) as LocalServiceInfo;
      expect(info.s3).toEqual({ endpoint, region: 'us-east-1', bucket: BUCKET, accessKeyId: 'S3RVER' });

      const dataDir = join(work, 'cli-queue');
      const add = await cli(info, dataDir, [
        'add',
        '--structure',
        info.structures[0]!,
        '--type',
        'interior',
        fixture('walkthrough.mp4'),
      ]);
      expect(add.code, add.stderr).toBe(0);
      const drain = await cli(info, dataDir, ['drain']);
      expect(drain.code, drain.stderr).toBe(0);
      const listed = await reader.send(
        new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `captures/${info.projectId}/` }),
      );
      const mine = (listed.Contents ?? []).filter(
        (o) =>
          o.Key!.endsWith('-walkthrough.mp4') && !Object.values(svc.store.state.uploads).some((u) => u.key === o.Key),
      );
      expect(mine).toHaveLength(1);
      expect(sha256(await read(mine[0]!.Key!))).toBe(sha256(readFileSync(fixture('walkthrough.mp4'))));
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
    expect(run.output().stdout + run.output().stderr).not.toContain(secret);
  });

  it('refuses to start on a bucket that does not exist, saying which and what to do, with no stack trace', async () => {
    const run = serviceCli(
      serviceArgs('cli-nobucket', {
        endpoint,
        bucket: 'no-such-bucket',
        'access-key': 'S3RVER',
        'secret-key': 'S3RVER',
      }),
    );
    expect(await run.ready).toEqual({ code: 1 });
    expect(run.output().stderr.trim()).toBe(
      `capture-service: The S3 storage is not usable: bucket "no-such-bucket" at ${endpoint}: the bucket does not exist: create it first (the gateway never creates one).`,
    );
  });

  it('names the --s3-* options missing and refuses an endpoint without a scheme, with exit code 2', async () => {
    const run = serviceCli(serviceArgs('cli-partial', { endpoint, 'access-key': 'S3RVER' }));
    expect(await run.ready).toEqual({ code: 2 });
    expect(run.output().stderr).toMatch(/another S3 storage needs --s3-bucket, --s3-secret-key as well/);
    const bare = serviceCli(serviceArgs('cli-partial', { endpoint: '127.0.0.1:9000' }));
    expect(await bare.ready).toEqual({ code: 2 });
    expect(bare.output().stderr).toMatch(/give the storage's base URL with its scheme/);
  });
});
