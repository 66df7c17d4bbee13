import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FaultRuleInput, TestService } from '../../e2e/service/testing.js';
import { startTestService } from '../../e2e/service/testing.js';
import { recommendedRetryPolicy } from '../api/errors.js';
import { openQueueDatabase } from '../queue/db.js';
import { UploadQueue } from '../queue/queue.js';
import type { Uploader, UploaderOptions } from '../service/uploader.js';
import { openUploader } from '../service/uploader.js';

/**
 * The shared test kit: a temporary queue, files on disk of given sizes with their
 * SHA-256, the local service (e2e/service, the stand-in for the gateway and S3) started the one
 * way tests start it, uploaders pointed at it, and what storage holds read back with its hash.
 * Test code only: nothing the app runs imports it.
 */

/** One mebibyte (bytes). */
export const MiB = 1024 * 1024;

/** The SHA-256 of some bytes, lower-case hex. */
export const sha256 = (bytes: Buffer | Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** A file the kit wrote: its path, size (bytes), SHA-256 (hex) and the bytes themselves. */
export interface DiskFile {
  path: string;
  size: number;
  sha256: string;
  bytes: Buffer;
}

/** A fresh temporary folder whose name starts with `prefix`; `remove()` deletes it with what it holds. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes `size` random bytes to `dir/name` (folders made as needed) and returns the file with its hash. */
export function diskFile(dir: string, name: string, size: number): DiskFile {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  const bytes = randomBytes(size);
  writeFileSync(path, bytes);
  return { path, size, sha256: sha256(bytes), bytes };
}

/** A queue database of its own in a temporary folder, migrated to the current version; `close()` closes and deletes it. */
export function tempQueue(prefix = 'kit-queue'): { queue: UploadQueue; dir: string; close(): void } {
  const t = tempDir(prefix);
  const queue = new UploadQueue(openQueueDatabase(join(t.dir, 'queue.db')).db);
  return {
    queue,
    dir: t.dir,
    close() {
      queue.db.close();
      t.remove();
    },
  };
}

/** What storage holds for one object: its bytes and their SHA-256 (hex). */
export interface StoredObject {
  bytes: Buffer;
  sha256: string;
}

/**
 * A running local service with a work folder, for one test file. `uploader(name)` opens an
 * uploader on its own queue folder with short retries (20 ms × 2^n, durable schedule a minute,
 * a part in doubt asked about for 1 s, unless `extra` says otherwise); `reset()` closes the uploaders and clears faults and settings
 * (call it in afterEach); `stop()` stops the service and deletes the work folder (afterAll).
 */
export interface ServiceKit {
  svc: TestService;
  work: string;
  uploader(name: string, extra?: Partial<UploaderOptions>): Uploader;
  file(name: string, size: number): DiskFile;
  /** Adds a fault rule (e2e/service/faults.ts); throws when the service refuses it. */
  fault(rule: FaultRuleInput): Promise<void>;
  /** How many times each fault rule fired, in the order they were added. */
  fired(): Promise<number[]>;
  /** What storage holds for a queued file (read through the S3 API, as any client would). */
  stored(u: Uploader, fileId: number): Promise<StoredObject>;
  /** The structure tests register captures on. */
  structure(): string;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the local service (with `service` options, e.g. its `partSize` in bytes) and a work
 * folder named after `prefix`. Throws what startTestService throws.
 */
export async function startServiceKit(
  prefix: string,
  service: Parameters<typeof startTestService>[0] = {},
): Promise<ServiceKit> {
  const svc = await startTestService(service);
  const work = tempDir(prefix);
  const open: Uploader[] = [];
  const kit: ServiceKit = {
    svc,
    work: work.dir,
    uploader(name, extra = {}) {
      const { info } = svc;
      const u = openUploader({
        dataDir: join(work.dir, name),
        gateway: {
          baseUrl: info.baseUrl,
          authUrl: info.authUrl,
          apiKey: info.apiKey,
          projectId: info.projectId,
          ...info.account,
        },
        partRetry: recommendedRetryPolicy(20, 20),
        apiRetry: recommendedRetryPolicy(20, 20),
        retrySchedule: { delayMs: () => 60_000 },
        stallTimeoutMs: 5000,
        // A part whose answer was lost and that storage never shows is sent again after 1 s, not 15 s.
        answerSettleMs: 1000,
        ...extra,
      });
      open.push(u);
      return u;
    },
    file: (name, size) => diskFile(work.dir, name, size),
    async fault(rule) {
      const res = await svc.admin('POST', '/faults', rule);
      if (res.status !== 201) throw new Error(`the service refused the fault rule: ${res.status} ${await res.text()}`);
    },
    async fired() {
      const { rules } = (await (await svc.admin('GET', '/faults')).json()) as { rules: { fired: number }[] };
      return rules.map((r) => r.fired);
    },
    async stored(u, fileId) {
      const key = svc.store.state.uploads[u.queue.file(fileId)!.uploadId!]!.key;
      const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: key }));
      const bytes = Buffer.from(await res.Body!.transformToByteArray());
      return { bytes, sha256: sha256(bytes) };
    },
    structure: () => svc.info.structures[0]!,
    async reset() {
      while (open.length) await open.pop()!.close();
      await svc.admin('DELETE', '/faults');
      await svc.admin('PUT', '/settings', {
        presignExpiresIn: 3600,
        bandwidthBytesPerSecond: null,
        latencyMs: 0,
        serverSideEncryption: null,
        storageRetryAfterSeconds: null,
        partStoreDelayMs: 0,
        statusRead: 'ok',
        jsonBytesPerSecond: null,
        presignQueryPadBytes: 0,
      });
    },
    async stop() {
      await kit.reset();
      await svc.stop();
      work.remove();
    },
  };
  return kit;
}
