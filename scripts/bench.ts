// npm run bench: throughput and memory of the whole upload flow against the local service.
//
// For each file size it uploads the same bytes twice against the same storage:
//   1. the ceiling: plain concurrent presigned PUTs (register, presign, PUT every part with the
//      same concurrency, report), with nothing else around them;
//   2. the uploader: the built `capture-uploader add`, then `drain` in a child process (queue,
//      engine, MD5, progress, everything; timed from process start), whose peak resident memory
//      is read from /proc.
// It prints MiB/s of each, their ratio, and the uploader's peak RSS; then the rate measured under
// a bandwidth limit. Figures, not assertions.
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { startLocalService } from '../e2e/service/index.js';
import type { LocalService } from '../e2e/service/index.js';
import { uploaderEnv } from '../e2e/service/testing.js';
import type { CliRun } from './measure.js';
import { runCli } from './measure.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'; // pinned SDK's future-Node notice: noise here

const MiB = 1024 * 1024;
const CONCURRENCY = 4;
const SIZES = (process.env.BENCH_SIZES_MIB ?? '1024,256').split(',').map(Number);

async function makeFile(path: string, size: number): Promise<void> {
  const out = createWriteStream(path);
  const block = randomBytes(8 * MiB);
  for (let written = 0; written < size; written += block.length) {
    if (!out.write(block.subarray(0, Math.min(block.length, size - written)))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

async function gateway(svc: LocalService, token: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${svc.info.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'x-api-key': svc.info.apiKey, 'x-project-id': svc.info.projectId, 'content-type': 'application/json' },
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
      res.on('end', () => (res.statusCode === 200 ? resolve(String(res.headers.etag)) : reject(new Error(`PUT part: ${res.statusCode}`))));
    });
    req.on('error', reject);
    createReadStream(path, { start, end: start + size - 1 }).pipe(req);
  });
}

async function ceiling(svc: LocalService, path: string, size: number): Promise<number> {
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
        files: [{ frameIndex: 1, fileName: 'ceiling.insv', contentType: 'video/insv', size }],
      },
    ],
  })) as { result: { uploadManifest: { uploadId: string; partSize: number }[] }[] };
  const { uploadId, partSize } = reg.result[0]!.uploadManifest[0]!;
  const presigned = (await gateway(svc, token, 'POST', `/upload-service/uploads/${uploadId}/parts/presign-missing`)) as {
    parts: { partNumber: number; url: string }[];
  };
  const queue = [...presigned.parts];
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

/** Runs the built CLI with the uploader's settings for `dataDir`; see runCli. */
function uploaderRun(svc: LocalService, dataDir: string, args: string[]): Promise<CliRun> {
  return runCli({ ...process.env, NODE_NO_WARNINGS: '1', ...uploaderEnv(svc.info, dataDir) }, ['--concurrency', String(CONCURRENCY), ...args]);
}

const work = mkdtempSync(join(tmpdir(), 'capture-bench-'));
const svc = await startLocalService({ dataDir: join(work, 'service') });
try {
  console.log(`bench: concurrency ${CONCURRENCY}, part size 5 MiB, local service on loopback, ${SIZES.join(' and ')} MiB files`);
  for (const mib of SIZES) {
    const size = mib * MiB;
    const file = join(work, `VID_20261122_070000_00_${String(mib).padStart(3, '0')}.insv`);
    await makeFile(file, size);
    const plainSeconds = await ceiling(svc, file, size);
    const dataDir = join(work, `queue-${mib}`);
    await uploaderRun(svc, dataDir, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', file]);
    const { seconds, peakRss, cpuSeconds } = await uploaderRun(svc, dataDir, ['drain']);
    const plain = mib / plainSeconds;
    const ours = mib / seconds;
    console.log(
      [
        `${String(mib).padStart(5)} MiB`,
        `plain presigned PUTs ${plain.toFixed(1)} MiB/s`,
        `capture-uploader ${ours.toFixed(1)} MiB/s`,
        `ratio ${(ours / plain).toFixed(2)}`,
        `uploader peak RSS ${(peakRss / MiB).toFixed(0)} MiB`,
        `CPU ${((cpuSeconds * 1024) / mib).toFixed(2)} s/GiB`,
      ].join(' | '),
    );
    rmSync(file, { force: true });
  }
  // The bandwidth limit: how closely the measured rate follows it.
  const limitMiB = 16;
  const capped = join(work, 'VID_20261122_071500_00_001.insv');
  await makeFile(capped, 64 * MiB);
  const cappedDir = join(work, 'queue-capped');
  await uploaderRun(svc, cappedDir, ['add', '--structure', svc.info.structures[0]!, '--type', 'interior', capped]);
  const { seconds } = await uploaderRun(svc, cappedDir, ['--bandwidth', `${limitMiB}M`, 'drain']);
  console.log(`   64 MiB | bandwidth limit ${limitMiB.toFixed(1)} MiB/s | measured ${(64 / seconds).toFixed(1)} MiB/s (process start and sign-in included)`);
} finally {
  await svc.close();
  rmSync(work, { recursive: true, force: true });
}
