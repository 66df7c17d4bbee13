import { describe, expect, it } from 'vitest';
import type { FaultRuleInput } from '../../e2e/service/testing.js';
import type { Uploader } from '../service/uploader.js';
import { MiB, sha256, useServiceKit } from '../testing/kit.js';

// The engine against a gateway stricter than the local service's defaults.

/** Uploaders with a 1.5 s stall timeout and otherwise the engine's own timings. */
const kit = useServiceKit('connection-test', {}, { timings: 'engine', uploader: { stallTimeoutMs: 1500 } });
/** An uploader on its own queue folder, reaching the gateway at `baseUrl` (the service's own by default). */
const uploader = (name: string, baseUrl?: string): Uploader => kit.uploader(name, { gateway: kit.gateway(baseUrl) });
const makeFile = (name: string, size: number) => kit.file(name, size);
const fault = (rule: FaultRuleInput) => kit.fault(rule);

/**
 * Adds the file at `path` on a fresh uploader `name` and drains once: nothing fails, its one file
 * completes and storage holds `bytes` for it. Returns the uploader and the capture's queue row.
 */
async function uploadsWhole(name: string, path: string, bytes: Buffer): Promise<{ u: Uploader; row: number }> {
  const u = uploader(name);
  const { queued } = await u.add([path], { structure: kit.structure(), type: 'interior' });
  const summary = await u.engine.drain();
  const [file] = u.queue.filesOf(queued[0]!);
  expect(summary.failed.map((f) => f.error)).toEqual([]);
  expect(summary.completed.map((f) => f.id)).toEqual([file!.id]);
  expect((await kit.stored(u, file!.id)).sha256).toBe(sha256(bytes));
  return { u, row: queued[0]! };
}

describe('a gateway that refuses bodiless JSON', () => {
  it('registers, presigns, reports and reads status without content-type where no body goes', async () => {
    await kit.svc.admin('PUT', '/settings', { strictContentType: true });
    const { path, bytes } = makeFile('strict.mp4', 6 * MiB);
    // A lost answer after the last byte makes the engine read the §4.9 status too.
    await fault({ target: 'storage', operation: 'UploadPart', partNumber: 2, action: { type: 'dropResponse' } });
    const { u, row } = await uploadsWhole('strict', path, bytes);
    // §4.8 read as any client would (the app no longer calls it), with no content-type.
    const status = await kit.svc.gateway(
      'GET',
      `/captures/api/v1/external-captures/${u.queue.capture(row)!.captureId!}/upload-status`,
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
      await kit.svc.admin('PUT', '/settings', { statusRead: status });
      const { path, bytes } = makeFile(`status-${status}.mp4`, 11 * MiB);
      await fault({ target: 'storage', operation: 'UploadPart', partNumber: 1, action: { type: 'dropResponse' } });
      await fault({ target: 'storage', operation: 'UploadPart', partNumber: 3, action: { type: 'dropResponse' } });
      const replacedBefore = kit.svc.storage.stats.partsReplaced;
      await uploadsWhole(`status-${status}`, path, bytes);
      // Reconciled, not re-sent: each of the three parts was stored once.
      expect(kit.svc.storage.stats.partsReplaced - replacedBefore).toBe(0);
    },
  );
});

describe('a captive portal in front of the gateway during uploads', () => {
  it('presign-missing answered with a portal page: the file waits on the schedule with one notice, never fails for good, then completes', async () => {
    const { path, bytes } = makeFile('portal.mp4', 6 * MiB);
    const u = uploader('portal');
    const warnings: string[] = [];
    u.engine.on((e) => void (e.type === 'warning' && warnings.push(e.message)));
    const { queued } = await u.add([path], { structure: kit.svc.info.structures[0]!, type: 'interior' });
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

    await kit.svc.admin('DELETE', '/faults');
    u.engine.resume(file!.id);
    const second = await u.engine.drain();
    expect(second.completed.map((f) => f.id)).toEqual([file!.id]);
    expect((await kit.stored(u, file!.id)).sha256).toBe(sha256(bytes));
  });
});

describe('a gateway that takes only a report of all parts in one call (§4.7)', () => {
  it('completes a 3-part file, one part answer lost after its last byte, without a partial report', async () => {
    await kit.svc.admin('PUT', '/settings', { completeBatchAllParts: true });
    const { path, bytes } = makeFile('all-parts.mp4', 11 * MiB);
    await fault({ target: 'storage', operation: 'UploadPart', partNumber: 2, action: { type: 'dropResponse' } });
    await uploadsWhole('all-parts', path, bytes);
  });
});

describe('a proxy page in front of the gateway is not the service refusing the key', () => {
  it('an HTML 403 on presign-missing: the queue is not stopped as an API-key problem, the file waits on the schedule', async () => {
    const { path } = makeFile('proxy-403.mp4', 1 * MiB);
    const u = uploader('proxy-403');
    const { queued } = await u.add([path], { structure: kit.svc.info.structures[0]!, type: 'interior' });
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
    const { queued } = await u.add([path], { structure: kit.svc.info.structures[0]!, type: 'interior' });
    await fault({ target: 'gateway', operation: 'presign-missing', times: 0, action: { type: 'html', status: 200 } });
    await u.engine.drain();
    const [file] = u.queue.filesOf(queued[0]!);
    expect(u.queue.file(file!.id)!.nextAttemptAt).toBeGreaterThan(Date.now());
    await kit.svc.admin('DELETE', '/faults');

    await u.close();
    u = uploader('settings-change'); // the same settings: the retry time stands
    expect(u.queue.file(file!.id)!.nextAttemptAt).toBeGreaterThan(Date.now());
    expect((await u.engine.drain()).completed).toEqual([]);

    await u.close();
    u = uploader('settings-change', kit.svc.info.baseUrl.replace('127.0.0.1', 'localhost')); // the address corrected
    expect(u.queue.file(file!.id)!.nextAttemptAt).toBeNull();
    const summary = await u.engine.drain();
    expect(summary.completed.map((f) => f.id)).toEqual([file!.id]);
    expect((await kit.stored(u, file!.id)).sha256).toBe(sha256(bytes));
  });
});
