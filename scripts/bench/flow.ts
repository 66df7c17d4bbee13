// The three ways the bench sends one file to the local storage: plain concurrent presigned PUTs
// (the ceiling), the built capture-uploader, and Debian's AWS CLI; and the rate under a bandwidth
// limit taken from the first byte sent.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { LocalService } from '../../e2e/service/index.js';
import { uploaderEnv } from '../../e2e/service/testing.js';
import { PartMd5, giveSlot, takeSlot } from '../../main/hash/local-md5.js';
import type { CliRun } from '../measure.js';
import { runCli } from '../measure.js';

export const MiB = 1024 * 1024;
/** Parts sent at once by the ceiling and the uploader alike. */
export const CONCURRENCY = 4;
const AWS = '/usr/bin/aws';

/**
 * CPU seconds this machine spends on the MD5 of 1 GiB (OpenSSL through node:crypto, 64 MiB at a
 * time): the part of the uploader's CPU that its ETag check costs whatever the rest does.
 */
export function md5CpuPerGiB(): number {
  const block = randomBytes(64 * MiB);
  const before = process.cpuUsage();
  const md5 = createHash('md5');
  for (let i = 0; i < 16; i++) md5.update(block);
  md5.digest();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

/**
 * CPU seconds the uploader's own MD5 (main/hash/local-md5.ts: four parts' chunks at once in the
 * SIMD kernel, 1 MiB slots as the part sender reads them) spends on 1 GiB: four parts of 256 MiB.
 */
export function md5LanesCpuPerGiB(): number {
  const slots = [0, 1, 2, 3].map(() => takeSlot()!);
  for (const slot of slots) slot.set(randomBytes(slot.length));
  const before = process.cpuUsage();
  const parts = slots.map(() => new PartMd5());
  for (let i = 0; i < 256; i++) parts.forEach((p, lane) => p.update(slots[lane]!));
  for (const p of parts) p.digestHex();
  const used = process.cpuUsage(before);
  slots.forEach(giveSlot);
  return (used.user + used.system) / 1e6;
}

/** Writes `size` bytes of random data (incompressible, like video) to `path`. */
export async function makeFile(path: string, size: number): Promise<void> {
  const out = createWriteStream(path);
  const block = randomBytes(8 * MiB);
  for (let written = 0; written < size; written += block.length) {
    if (!out.write(block.subarray(0, Math.min(block.length, size - written)))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** Calls the capture gateway with the standard headers (§4) and returns its JSON; throws on a non-2xx answer. */
export async function gateway(
  svc: LocalService,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(`${svc.info.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'x-api-key': svc.info.apiKey,
      'x-project-id': svc.info.projectId,
      'content-type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
  return res.json();
}

/** PUTs one part from disk with node:http (no client library), returning the ETag. */
function putPart(url: string, path: string, start: number, size: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-length': size } }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200 ? resolve(String(res.headers.etag)) : reject(new Error(`PUT part: ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    createReadStream(path, { start, end: start + size - 1 }).pipe(req);
  });
}

/** A file registered for the bench's bare clients, with every part presigned. */
export interface RegisteredUpload {
  /** The bearer token of the sign-in (§4.1). */
  token: string;
  /** The upload id of the file's multipart upload (§4.4). */
  uploadId: string;
  /** Bytes in each part but the last. */
  partSize: number;
  /** Every part's presigned PUT URL (§4.5), in part-number order. */
  parts: { partNumber: number; url: string }[];
  /** `performance.now()` (ms) as the registration was sent: the bare clients are timed from it. */
  started: number;
}

/**
 * Signs in (§4.1), registers one capture of one file `fileName` of `size` bytes (§4.4) and presigns
 * all its parts (§4.5), as the bench's bare clients need before their PUTs. Throws on a non-2xx answer.
 */
export async function registerForPuts(svc: LocalService, fileName: string, size: number): Promise<RegisteredUpload> {
  const signin = await fetch(`${svc.info.authUrl}/api/v1/users/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(svc.info.account),
  });
  const { token } = (await signin.json()) as { token: string };
  const started = performance.now();
  const reg = (await gateway(svc, token, 'POST', '/captures/api/v1/external-captures/add-capture', {
    captures: [
      {
        project: svc.info.projectId,
        structure: svc.info.structures[0],
        captureDateTime: new Date().toISOString(),
        type: 'interior',
        mode: '360 Video',
        sourceType: 'bot',
        files: [{ frameIndex: 1, fileName, contentType: 'video/insv', size }],
      },
    ],
  })) as { result: { uploadManifest: { uploadId: string; partSize: number }[] }[] };
  const { uploadId, partSize } = reg.result[0]!.uploadManifest[0]!;
  const { parts } = (await gateway(
    svc,
    token,
    'POST',
    `/upload-service/uploads/${uploadId}/parts/presign-missing`,
  )) as {
    parts: { partNumber: number; url: string }[];
  };
  return { token, uploadId, partSize, parts, started };
}

/**
 * The ceiling: registers the file (§4.4), presigns every part (§4.5), PUTs them `CONCURRENCY` at
 * a time with nothing around them (§4.6) and reports them (§4.7). Returns wall seconds from
 * registration to the completion's answer (sign-in not included).
 */
export async function plainPuts(svc: LocalService, path: string, size: number): Promise<number> {
  const { token, uploadId, partSize, parts, started } = await registerForPuts(svc, 'ceiling.insv', size);
  const queue = [...parts];
  const done: { partNumber: number; etag: string; size: number }[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let p = queue.shift(); p; p = queue.shift()) {
        const start = (p.partNumber - 1) * partSize;
        const len = Math.min(partSize, size - start);
        done.push({ partNumber: p.partNumber, etag: await putPart(p.url, path, start, len), size: len });
      }
    }),
  );
  done.sort((a, b) => a.partNumber - b.partNumber);
  await gateway(svc, token, 'POST', `/upload-service/uploads/${uploadId}/parts/complete-batch`, { parts: done });
  return (performance.now() - started) / 1000;
}

/**
 * The uploader as a person runs it: the built CLI's `add` of `path` into a new queue under
 * `dataDir`, then `drain` (with `extra` flags, e.g. `--bandwidth 16M`), timed from the drain's
 * process start (sign-in included). Returns the drain's run; see runCli.
 */
export async function uploaderDrain(
  svc: LocalService,
  dataDir: string,
  path: string,
  extra: string[] = [],
  traceWrites = false,
): Promise<CliRun> {
  const env = { ...process.env, NODE_NO_WARNINGS: '1', ...uploaderEnv(svc.info, dataDir) };
  const common = ['--concurrency', String(CONCURRENCY), ...extra];
  await runCli(env, [...common, 'add', '--structure', svc.info.structures[0]!, '--type', 'interior', path]);
  return runCli(env, [...common, 'drain'], traceWrites);
}

/**
 * `aws s3 cp` of `path` to the local storage with the AWS CLI's defaults (8 MiB parts, 10 at
 * once), in a home of its own (path-style addressing, the storage's keys, no CA bundle: the
 * storage is plain HTTP, and an inherited AWS_CA_BUNDLE would be read for nothing). Returns wall
 * seconds of the whole command and its CPU seconds (bash's `times`: the command's user + system).
 */
export async function awsCopy(
  svc: LocalService,
  work: string,
  path: string,
  key: string,
): Promise<{ seconds: number; cpuSeconds: number }> {
  const config = join(work, 'aws-config');
  writeFileSync(config, '[default]\nregion = us-east-1\ns3 =\n    addressing_style = path\n');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: work,
    AWS_CONFIG_FILE: config,
    AWS_SHARED_CREDENTIALS_FILE: join(work, 'none'),
    AWS_ACCESS_KEY_ID: svc.info.s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: svc.info.s3.secretAccessKey,
    AWS_DEFAULT_REGION: svc.info.s3.region,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_PAGER: '',
  };
  const args = [
    AWS,
    's3',
    'cp',
    '--only-show-errors',
    path,
    `s3://${svc.info.s3.bucket}/${key}`,
    '--endpoint-url',
    svc.info.s3.endpoint,
  ];
  const started = performance.now();
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile('/bin/bash', ['-c', '"$@" && times', 'bash', ...args], { env, timeout: 600_000 }, (err, out, errText) =>
      err ? reject(new Error(`aws s3 cp failed: ${errText.slice(-500)}`)) : resolve(out),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  // `times` prints the shell's own times, then its children's: "0m1.234s 0m0.567s".
  const children = stdout.trim().split('\n').at(-1)!;
  const [user, sys] = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return { seconds, cpuSeconds: user! + sys! };
}

/**
 * The rate (bytes per second) at which a drain sent a file of about `bytes` bytes, from its first
 * byte to its last, out of its socket-write trace (runCli's `writes`): the window starts at the
 * last sample before the writes grew by 256 KiB (before that: start-up, sign-in, the queue) and
 * ends at the first sample within 64 KiB of the final count (after that: only the small requests
 * that report the parts). Starting at the sample before the first byte makes the window up to
 * 10 ms long, never short. Throws Error when the trace does not show about `bytes` bytes sent.
 */
export function rateFromFirstByte(writes: { t: number; bytes: number }[], bytes: number): number {
  const base = writes[0]?.bytes ?? 0;
  const first = writes.findIndex((w) => w.bytes - base >= 256 * 1024);
  if (first < 1) throw new Error('the write trace does not show the upload starting');
  const from = writes[first - 1]!;
  const top = Math.max(...writes.map((w) => w.bytes));
  const to = writes.find((w) => w.bytes >= top - 64 * 1024)!;
  const moved = to.bytes - from.bytes;
  if (Math.abs(moved - bytes) > 0.02 * bytes)
    throw new Error(`the write trace shows ${moved} bytes sent, not about ${bytes}`);
  return (moved * 1000) / (to.t - from.t);
}
