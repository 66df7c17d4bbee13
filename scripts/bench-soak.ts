// npm run bench:soak [-- --files 4] [--size-mib 64] [--storage-mibps 8] [--every 5] [--seed 1] [--sse aws:kms|sse-c|none] [--minutes 30]
//
// A compressed night against storage that answers as real S3 and what stands in front of it do
// The engine drains a card of `--files` recordings of `--size-mib` MiB
// while, every `--every` seconds, the next fault of a seeded rotation replaces the last one:
// storage 500, 5xx after storing the part (503 SlowDown with Retry-After, 500), a proxy's HTML 403,
// resets after a part's last byte and mid-part, a gateway 502 on presign, and an expiry of every
// token; presigned URLs live 60 s, storage takes at most `--storage-mibps` MiB/s (so the night
// lasts long enough for the faults to meet the parts), and with `--sse` every part gets a
// KMS-style ETag (not its MD5).
// The retry schedule is compressed (1 s doubling to 10 s) and the drain waits through outages.
// Prints what it cost (parts sent again, parts stored twice, faults fired) and checks every
// object's SHA-256; exits 1 if a file did not complete or an object differs. Figures, not a test.
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { FaultRuleInput } from '../e2e/service/faults.js';
import { startTestService } from '../e2e/service/testing.js';
import { recommendedRetryPolicy } from '../main/api/errors.js';
import { openUploader } from '../main/service/uploader.js';
import { MiB, makeFile } from './bench/flow.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values: flags } = parseArgs({
  options: {
    files: { type: 'string', default: '4' },
    'size-mib': { type: 'string', default: '64' },
    'storage-mibps': { type: 'string', default: '8' },
    every: { type: 'string', default: '5' },
    seed: { type: 'string', default: '1' },
    sse: { type: 'string', default: 'aws:kms' },
    minutes: { type: 'string', default: '30' },
  },
});
const FILES = Number(flags.files);
const SIZE = Number(flags['size-mib']) * MiB;
const EVERY_MS = Number(flags.every) * 1000;
const SSE = flags.sse === 'none' ? null : flags.sse;
if (SSE !== null && SSE !== 'aws:kms' && SSE !== 'sse-c')
  throw new Error(`--sse must be aws:kms, sse-c or none, not ${flags.sse}`);

/** mulberry32: the same rotation on every run with the same seed. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PART = 5 * MiB; // the local service's part size
const part = { target: 'storage', operation: 'UploadPart' } as const;
/** The rotation: each entry a name and the rules it sets (none: a quiet spell), or a token expiry. */
const FAULTS: { name: string; rules: FaultRuleInput[]; expireTokens?: boolean }[] = [
  { name: 'storage 500', rules: [{ ...part, times: 3, action: { type: 'status', status: 500 } }] },
  {
    name: '503 SlowDown after storing (Retry-After 1)',
    rules: [{ ...part, times: 2, action: { type: 'statusAfterActing', status: 503 } }],
  },
  { name: '500 after storing', rules: [{ ...part, times: 2, action: { type: 'statusAfterActing', status: 500 } }] },
  { name: 'HTML 403 from a proxy', rules: [{ ...part, times: 6, action: { type: 'html', status: 403 } }] },
  { name: 'reset after the last byte', rules: [{ ...part, times: 3, action: { type: 'reset', afterBytes: PART } }] },
  { name: 'reset mid-part', rules: [{ ...part, times: 2, action: { type: 'reset', afterBytes: MiB } }] },
  {
    name: 'gateway 502 on presign',
    rules: [{ target: 'gateway', operation: 'presign-missing', times: 2, action: { type: 'status', status: 502 } }],
  },
  { name: 'every token expired', rules: [], expireTokens: true },
  { name: 'quiet', rules: [] },
];

async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

const work = mkdtempSync(join(tmpdir(), 'capture-soak-'));
const svc = await startTestService({ dataDir: join(work, 'service') });
let exitCode = 0;
try {
  await svc.admin('PUT', '/settings', {
    presignExpiresIn: 60,
    serverSideEncryption: SSE,
    storageRetryAfterSeconds: 1,
    bandwidthBytesPerSecond: Math.round(Number(flags['storage-mibps']) * MiB),
  });
  const paths: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const path = join(work, `soak-${String(i + 1).padStart(3, '0')}.mp4`);
    await makeFile(path, SIZE);
    paths.push(path);
  }
  const warnings: string[] = [];
  const u = openUploader({
    dataDir: join(work, 'queue'),
    gateway: {
      baseUrl: svc.info.baseUrl,
      authUrl: svc.info.authUrl,
      apiKey: svc.info.apiKey,
      projectId: svc.info.projectId,
      ...svc.info.account,
    },
    partRetry: recommendedRetryPolicy(100, 100),
    apiRetry: recommendedRetryPolicy(100, 100),
    retrySchedule: { delayMs: (attempt) => Math.min(1000 * 2 ** attempt, 10_000) },
    concurrency: 4,
    log: { info: () => {}, warn: (m) => warnings.push(m) },
  });
  const random = prng(Number(flags.seed));
  const fired = new Map<string, number>();
  const rotate = async () => {
    const f = FAULTS[Math.floor(random() * FAULTS.length)]!;
    await svc.admin('DELETE', '/faults');
    for (const rule of f.rules) await svc.admin('POST', '/faults', rule);
    if (f.expireTokens) await svc.admin('POST', '/tokens/expire');
    fired.set(f.name, (fired.get(f.name) ?? 0) + 1);
  };
  const started = performance.now();
  await rotate();
  const timer = setInterval(() => void rotate(), EVERY_MS);
  let summary;
  try {
    await u.add(paths, { structure: svc.info.structures[0]!, type: 'interior' });
    summary = await u.engine.drain({ wait: true, deadline: Date.now() + Number(flags.minutes) * 60_000 });
  } finally {
    clearInterval(timer);
    await svc.admin('DELETE', '/faults');
  }
  const seconds = (performance.now() - started) / 1000;

  const totalParts = FILES * Math.ceil(SIZE / PART);
  const puts = svc.storage.received.filter((r) => r.operation === 'UploadPart').length;
  let identical = 0;
  for (const f of summary.completed) {
    const key = svc.store.state.uploads[f.uploadId!]!.key;
    const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: key }));
    const got = createHash('sha256')
      .update(await res.Body!.transformToByteArray())
      .digest('hex');
    if (got === (await sha256File(f.path))) identical++;
  }
  console.log(
    `soak: ${FILES} × ${SIZE / MiB} MiB at ${flags['storage-mibps']} MiB/s, a fault every ${EVERY_MS / 1000} s (seed ${flags.seed}), SSE ${SSE ?? 'none'}, ${seconds.toFixed(1)} s`,
  );
  console.log(
    `  completed ${summary.completed.length}/${FILES}, objects byte-identical ${identical}/${FILES}; failed ${summary.failed.length}, waiting ${summary.waiting.length}, needing a person ${summary.needsAttention.length}`,
  );
  console.log(
    `  UploadPart requests ${puts} for ${totalParts} parts (${puts - totalParts} again); parts stored ${svc.storage.stats.partsStored}, stored over an existing copy ${svc.storage.stats.partsReplaced}`,
  );
  console.log(`  faults: ${[...fired].map(([n, c]) => `${n} ×${c}`).join(', ')}`);
  if (summary.blocked) console.log(`  queue blocked: ${summary.blocked}`);
  for (const w of new Set(warnings)) console.log(`  warning: ${w}`);
  await u.close();
  if (identical !== FILES) exitCode = 1;
} finally {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(exitCode);
