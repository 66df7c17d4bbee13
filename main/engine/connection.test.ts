import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRuleInput, TestService } from '../../e2e/service/testing.js';
import { startTestService } from '../../e2e/service/testing.js';
import { recommendedRetryPolicy } from '../api/errors.js';
import type { Uploader } from '../service/uploader.js';
import { openUploader } from '../service/uploader.js';

// The engine against a gateway stricter than the local service's defaults.

const MiB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let svc: TestService;
let work: string;
const open: Uploader[] = [];

beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'connection-test-'));
});
afterEach(async () => {
  while (open.length) await open.pop()!.close();
  await svc.admin('DELETE', '/faults');
  await svc.admin('PUT', '/settings', { strictContentType: false, statusRead: 'ok', completeBatchAllParts: false });
});
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

function uploader(name: string, baseUrl = svc.info.baseUrl): Uploader {
  const { info } = svc;
  const u = openUploader({
    dataDir: join(work, name),
    gateway: { baseUrl, authUrl: info.authUrl, apiKey: info.apiKey, projectId: info.projectId, ...info.account },
    partRetry: recommendedRetryPolicy(20, 20),
    apiRetry: recommendedRetryPolicy(20, 20),
    stallTimeoutMs: 1500,
  });
  open.push(u);
  return u;
}

function makeFile(name: string, size: number): { path: string; bytes: Buffer } {
  const path = join(work, name);
  const bytes = randomBytes(size);
  writeFileSync(path, bytes);
  return { path, bytes };
}

async function stored(u: Uploader, fileId: number): Promise<Buffer> {
  const key = svc.store.state.uploads[u.queue.file(fileId)!.uploadId!]!.key;
  const res = await svc.s3().send(new GetObjectCommand({ Bucket: svc.info.s3.bucket, Key: key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

const fault = async (rule: FaultRuleInput) => expect((await svc.admin('POST', '/faults', rule)).status).toBe(201);

describe('a gateway that refuses bodiless JSON', () => {
  it('registers, presigns, reports and reads status without content-type where no body goes', async () => {
    await svc.admin('PUT', '/settings', { strictContentType: true });
    const { path, bytes } = makeFile('strict.mp4', 6 * MiB);
    // A lost answer after the last byte makes the engine read the §4.9 status too.
    await fault({ target: 'storage', operation: 'UploadPart', partNumber: 2, action: { type: 'dropResponse' } });
    const u = uploader('strict');
    const { queued } = await u.add([path], { structure: svc.info.structures[0]!, type: 'interior' });
    const summary = await u.engine.drain();
    const [file] = u.queue.filesOf(queued[0]!);
    expect(summary.failed).toEqual([]);
    expect(summary.completed.map((f) => f.id)).toEqual([file!.id]);
    expect(sha256(await stored(u, file!.id))).toBe(sha256(bytes));
    // §4.8 read as any client would (the app no longer calls it), with no content-type.
    const status = await svc.gateway(
      'GET',
      `/captures/api/v1/external-captures/${u.queue.capture(queued[0]!)!.captureId!}/upload-status`,
      { headers: { 'content-type': undefined } },
    );
    expect(((await status.json()) as { uploadStatus: string }).uploadStatus).toBe('complete');
    expect(await u.gateway.latestDefaultDesignUpdate()).toEqual(expect.any(String)); // §4.3 keeps its required header
  });
});

describe('a gateway whose §4.9 path is not the guessed one', () => {
  it.each([404, 405] as const)(
    'status read answering %i: a lost part answer is reconciled by presign-missing and the file completes',
    async (status) => {
      await svc.admin('PUT', '/settings', { statusRead: status });
      const { path, bytes } = makeFile(`status-${status}.mp4`, 11 * MiB);
      await fault({ target: 'storage', operation: 'UploadPart', partNumber: 1, action: { type: 'dropResponse' } });
      await fault({ target: 'storage', operation: 'UploadPart', partNumber: 3, action: { type: 'dropResponse' } });
      const replacedBefore = svc.storage.stats.partsReplaced;
      const u = uploader(`status-${status}`);
      const { queued } = await u.add([path], { structure: svc.info.structures[0]!, type: 'interior' });
      const summary = await u.engine.drain();
      const [file] = u.queue.filesOf(queued[0]!);
      expect(summary.failed.map((f) => f.error)).toEqual([]);
      expect(summary.completed.map((f) => f.id)).toEqual([file!.id]);
      expect(sha256(await stored(u, file!.id))).toBe(sha256(bytes));
      // Reconciled, not re-sent: each of the three parts was stored once.
      expect(svc.storage.stats.partsReplaced - replacedBefore).toBe(0);
    },
  );
});

describe('a captive portal in front of the gateway during uploads', () => {
  it('presign-missing answered with a portal page: the file waits on the schedule with one notice, never fails for good, then completes', async () => {
    const { path, bytes } = makeFile('portal.mp4', 6 * MiB);
    const u = uploader('portal');
    const warnings: string[] = [];
    u.engine.on((e) => void (e.type === 'warning' && warnings.push(e.message)));
    const { queued } = await u.add([path], { structure: svc.info.structures[0]!, type: 'interior' });
    await fault({ target: 'gateway', operation: 'presign-missing', times: 0, action: { type: 'html', status: 200 } });
    const first = await u.engine.drain();
    const [file] = u.queue.filesOf(queued[0]!);
    expect(first.failed).toEqual([]);
    expect(first.waiting.map((f) => f.id)).toEqual([file!.id]);
    expect(u.queue.file(file!.id)!.transient).toBe(true);
    expect(
      warnings.filter((w) =>
        /^Cannot reach the capture gateway at http:\/\/127\.0\.0\.1:\d+\/gateway: something else answered/.test(w),
      ),
    ).toHaveLength(1);

    await svc.admin('DELETE', '/faults');
    u.engine.resume(file!.id);
    const second = await u.engine.drain();
    expect(second.completed.map((f) => f.id)).toEqual([file!.id]);
    expect(sha256(await stored(u, file!.id))).toBe(sha256(bytes));
  });
});

describe('a gateway that takes only a report of all parts in one call (§4.7)', () => {
  it('completes a 3-part file, one part answer lost after its last byte, without a partial report', async () => {
    await svc.admin('PUT', '/settings', { completeBatchAllParts: true });
    const { path, bytes } = makeFile('all-parts.mp4', 11 * MiB);
    await fault({ target: 'storage', operation: 'UploadPart', partNumber: 2, action: { type: 'dropResponse' } });
    const u = uploader('all-parts');
    const { queued } = await u.add([path], { structure: svc.info.structures[0]!, type: 'interior' });
    const summary = await u.engine.drain();
    const [file] = u.queue.filesOf(queued[0]!);
    expect(summary.failed.map((f) => f.error)).toEqual([]);
    expect(summary.completed.map((f) => f.id)).toEqual([file!.id]);
    expect(sha256(await stored(u, file!.id))).toBe(sha256(bytes));
  });
});

describe('a proxy page in front of the gateway is not the service refusing the key', () => {
  it('an HTML 403 on presign-missing: the queue is not stopped as an API-key problem, the file waits on the schedule', async () => {
    const { path } = makeFile('proxy-403.mp4', 1 * MiB);
    const u = uploader('proxy-403');
    const { queued } = await u.add([path], { structure: svc.info.structures[0]!, type: 'interior' });
    await fault({ target: 'gateway', operation: 'presign-missing', times: 0, action: { type: 'html', status: 403 } });
    const summary = await u.engine.drain();
    const [file] = u.queue.filesOf(queued[0]!);
    expect(summary.blocked).toBeNull();
    expect(summary.failed).toEqual([]);
    expect(summary.waiting.map((f) => [f.id, f.transient])).toEqual([[file!.id, true]]);
    expect(u.queue.file(file!.id)!.error).toMatch(/something else answered \(HTTP 403\) with a web page/);
  });
});

describe('a settings change makes what waited due at once', () => {
  it('a file waiting for its retry time is due as soon as the queue opens with another gateway address, not with the same one', async () => {
    const { path, bytes } = makeFile('settings-change.mp4', 6 * MiB);
    let u = uploader('settings-change');
    const { queued } = await u.add([path], { structure: svc.info.structures[0]!, type: 'interior' });
    await fault({ target: 'gateway', operation: 'presign-missing', times: 0, action: { type: 'html', status: 200 } });
    await u.engine.drain();
    const [file] = u.queue.filesOf(queued[0]!);
    expect(u.queue.file(file!.id)!.nextAttemptAt).toBeGreaterThan(Date.now());
    await svc.admin('DELETE', '/faults');

    await open.pop()!.close();
    u = uploader('settings-change'); // the same settings: the retry time stands
    expect(u.queue.file(file!.id)!.nextAttemptAt).toBeGreaterThan(Date.now());
    expect((await u.engine.drain()).completed).toEqual([]);

    await open.pop()!.close();
    u = uploader('settings-change', svc.info.baseUrl.replace('127.0.0.1', 'localhost')); // the address corrected
    expect(u.queue.file(file!.id)!.nextAttemptAt).toBeNull();
    const summary = await u.engine.drain();
    expect(summary.completed.map((f) => f.id)).toEqual([file!.id]);
    expect(sha256(await stored(u, file!.id))).toBe(sha256(bytes));
  });
});
