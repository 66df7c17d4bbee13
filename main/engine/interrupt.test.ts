import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../e2e/service/testing.js';
import { startTestService } from '../../e2e/service/testing.js';
import { recommendedRetryPolicy } from '../api/errors.js';
import type { Uploader } from '../uploader.js';
import { openUploader } from '../uploader.js';

// Issue 17 #16: drains stopped as Ctrl-C stops them (engine.stop(), the queue closed) at seeded
// random instants, each followed at once by the next drain on the same queue, as a person
// pressing Ctrl-C and running drain again does. No part may be stored twice.
const MiB = 1024 * 1024;
const RUNS = 50;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** mulberry32: a small seeded PRNG, so every run stops at the same instants. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let svc: TestService;
let work: string;
beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'interrupt-test-'));
});
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

function uploader(dataDir: string): Uploader {
  const { info } = svc;
  return openUploader({
    dataDir,
    gateway: { baseUrl: info.baseUrl, authUrl: info.authUrl, apiKey: info.apiKey, projectId: info.projectId, ...info.account },
    partRetry: recommendedRetryPolicy(20, 20),
    apiRetry: recommendedRetryPolicy(20, 20),
    concurrency: 1,
  });
}

describe('drains interrupted at random instants', () => {
  it(`${RUNS} runs: never a part stored twice, every object byte-identical`, async () => {
    // Slow enough that the system's send buffer (up to 4 MiB) holds more than the 1.5 s a fully
    // sent part is given for its answer on Ctrl-C: the case in which the part used to be stored twice.
    await svc.admin('PUT', '/settings', { bandwidthBytesPerSecond: 2 * MiB });
    const random = prng(20261125);
    const stoppedAt: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const dataDir = join(work, `queue-${run}`);
      const path = join(work, `run-${run}.mp4`);
      const bytes = randomBytes(5 * MiB + 1 + Math.floor(random() * MiB)); // two parts
      writeFileSync(path, bytes);
      const before = { ...svc.storage.stats };

      let u = uploader(dataDir);
      const { queued } = await u.add([path], { structure: svc.info.structures[0]!, type: 'interior' });
      const fileId = u.queue.filesOf(queued[0]!)[0]!.id;
      const drain = u.engine.drain();
      const after = 200 + Math.floor(random() * 2500);
      await sleep(after);
      stoppedAt.push(after);
      await u.close(); // what SIGINT does: stop, flush, close the queue
      await drain;

      u = uploader(dataDir);
      try {
        const summary = await u.engine.drain();
        const why = [...summary.waiting, ...summary.failed].map((f) => f.error).join('; ');
        expect(summary.completed.map((f) => f.id), `run ${run}, stopped after ${after} ms: ${why}`).toEqual([fileId]);
        const key = svc.store.state.uploads[u.queue.file(fileId)!.uploadId!]!.key;
        const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: key }));
        expect(sha256(Buffer.from(await res.Body!.transformToByteArray())), `run ${run}`).toBe(sha256(bytes));
        expect(svc.storage.stats.partsReplaced - before.partsReplaced, `run ${run}, stopped after ${after} ms: a part was stored twice`).toBe(0);
      } finally {
        await u.close();
      }
    }
    expect(stoppedAt).toHaveLength(RUNS);
  }, 600_000);
});
