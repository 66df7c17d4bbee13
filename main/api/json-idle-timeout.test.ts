import { describe, expect, it } from 'vitest';
import { registerCapture } from '../../e2e/service/testing.js';
import { MiB, useServiceKit } from '../testing/kit.js';
import { NetworkError, ResponseShapeError } from './errors.js';
import { CaptureGateway } from './gateway.js';

// Timeouts of JSON calls count silence, not work (docs/decisions/0006-json-idle-timeout.md).
//
// The case it scales down: a 5 GiB recording at 5 MiB parts is 1,024 parts; with 4 KiB queries
// (STS-signed URLs) §4.5 answers about 4.77 MB, which a 32 KiB/s downlink takes ~147 s to bring,
// 2.45 × the 60 s timeout. Here: 48 parts with the same 4 KiB queries (~215 KB, ~6.6 s at
// 32 KiB/s) against a 2.5 s timeout, 2.6 × it, so the old whole-request timeout cuts it as it cut
// the real one, and the test takes seconds, not minutes.

const PARTS = 48;
const TIMEOUT_MS = 2500;

const kit = useServiceKit('json-idle-timeout');

const gateway = (extra: { maxAnswerBytes?: number } = {}) => {
  const { info } = kit.svc;
  return new CaptureGateway(
    { baseUrl: info.baseUrl, authUrl: info.authUrl, apiKey: info.apiKey, projectId: info.projectId, ...info.account },
    { retry: { retries: 2, delayMs: () => 10 }, timeoutMs: TIMEOUT_MS, ...extra },
  );
};
const settings = async (body: unknown) => expect((await kit.svc.admin('PUT', '/settings', body)).status).toBe(200);

describe('JSON calls: an idle timeout, not a whole-request one', () => {
  it('reads a presign answer of every part with 4 KiB queries at 32 KiB/s to its end, though it takes over twice the timeout', async () => {
    const { manifest } = await registerCapture(kit.svc, [{ name: 'big.insv', size: PARTS * 5 * MiB }]);
    const g = gateway();
    await g.ready(); // signed in before the downlink slows
    await settings({ presignQueryPadBytes: 4096, jsonBytesPerSecond: 32 * 1024 });
    // Counts the presign calls that reach the gateway (a rule that fires on every match, doing nothing).
    await kit.fault({ target: 'gateway', operation: 'presign-missing', times: 0, action: { type: 'latency', ms: 0 } });
    const started = performance.now();
    // The file's part count sizes the call's total deadline (what such an answer may carry at 16 KiB/s), never its silence.
    const res = await g.presignMissing(manifest[0]!.uploadId, undefined, PARTS);
    const tookMs = performance.now() - started;
    expect(res.parts.map((p) => p.partNumber)).toEqual(Array.from({ length: PARTS }, (_, i) => i + 1));
    for (const p of res.parts) expect(new URL(p.url).searchParams.get('X-Amz-Security-Token')).toHaveLength(4096);
    // The answer really took longer than the timeout (bytes flowing all the while), and was asked for once.
    expect(tookMs).toBeGreaterThan(2 * TIMEOUT_MS);
    expect(await kit.fired()).toEqual([1]);
  }, 60_000);

  it('still gives up on silence: an answer that never comes fails after the idle timeout', async () => {
    const { manifest } = await registerCapture(kit.svc, [{ name: 'quiet.insv', size: 5 * MiB }]);
    const g = gateway();
    await g.ready();
    await kit.fault({ target: 'gateway', operation: 'presign-missing', times: 0, action: { type: 'hang' } });
    const started = performance.now();
    const err = await g.presignMissing(manifest[0]!.uploadId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    // 1 + 2 tries, each ending at the idle timeout.
    expect(await kit.fired()).toEqual([3]);
    expect(performance.now() - started).toBeGreaterThan(3 * TIMEOUT_MS - 500);
  }, 60_000);

  it('bounds the answer: one over the limit stops being read and is a clear failure', async () => {
    const { manifest } = await registerCapture(kit.svc, [{ name: 'huge.insv', size: PARTS * 5 * MiB }]);
    await settings({ presignQueryPadBytes: 4096 });
    const err = await gateway({ maxAnswerBytes: 64 * 1024 })
      .presignMissing(manifest[0]!.uploadId)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect((err as Error).message).toMatch(/answered more than/);
    expect((err as Error).message).not.toMatch(/X-Amz|https?:/);
  });
});

describe('the engine on a slow downlink with long presigned queries', () => {
  it('starts and completes the upload: the presign answer, 2.7 × the idle timeout long, is read once and whole', async () => {
    // 3 parts with 4 KiB queries (~13.5 KB) at 2 KiB/s: ~6.7 s against a 2.5 s idle timeout. The
    // slowest link accepted is scaled down with the rest (1 KiB/s), so the call's total deadline
    // (what 3 presigned parts may carry at that rate) stands well above the 6.7 s.
    const file = kit.file('slow-downlink.mp4', 11 * MiB);
    const u = kit.uploader('slow-downlink', { apiIdleTimeoutMs: TIMEOUT_MS, minLinkRate: 1024 });
    const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
    await settings({ presignQueryPadBytes: 4096, jsonBytesPerSecond: 2 * 1024 });
    await kit.fault({ target: 'gateway', operation: 'presign-missing', times: 0, action: { type: 'latency', ms: 0 } });
    const started = performance.now();
    const summary = await u.engine.drain();
    const row = u.queue.filesOf(queued[0]!)[0]!;
    expect(summary.completed.map((f) => f.id)).toEqual([row.id]);
    expect((await kit.stored(u, row.id)).sha256).toBe(file.sha256);
    expect(await kit.fired()).toEqual([1]);
    expect(performance.now() - started).toBeGreaterThan(2 * TIMEOUT_MS);
  }, 60_000);
});
