import { describe, expect, it } from 'vitest';
import { registerCapture } from '../../e2e/service/testing.js';
import { MiB, useServiceKit } from '../testing/kit.js';
import { NetworkError, RequestNotSentError } from './errors.js';
import { CaptureGateway } from './gateway.js';
import { DEADLINE_CODE } from './retry-table.js';

// An answer that trickles (its status, then a byte now and then) is no silence, so the idle
// timeout never ends it: every call also has a total deadline, sized by what its answer should
// carry at the slowest link the engine is built for (http.ts jsonDeadlineMs). Past it the call
// is given up with "the capture service answers too slowly", and is not repeated at once (it
// would trickle again): the durable schedule tries it later.

const IDLE_MS = 1000;
const kit = useServiceKit('json-deadline');

const gateway = () => {
  const { info } = kit.svc;
  return new CaptureGateway(
    { baseUrl: info.baseUrl, authUrl: info.authUrl, apiKey: info.apiKey, projectId: info.projectId, ...info.account },
    { retry: { retries: 3, delayMs: () => 10 }, timeoutMs: IDLE_MS },
  );
};

/** Resolves with what `pending` settles to, or with 'still waiting' once `ms` passed. */
const within = (pending: Promise<unknown>, ms: number) =>
  Promise.race([pending.catch((e: unknown) => e), new Promise((r) => setTimeout(() => r('still waiting'), ms))]);

describe('a JSON answer that trickles is given up at its deadline', () => {
  it('sign-in answered with a space a second: given up within seconds, said, asked once', async () => {
    await kit.fault({ target: 'auth', operation: 'signin', times: 0, action: { type: 'trickle', everyMs: 200 } });
    const started = performance.now();
    const err = await within(gateway().ready(), 15_000);
    const took = performance.now() - started;
    expect(err, 'the sign-in after 15 s').toBeInstanceOf(RequestNotSentError);
    const cause = (err as RequestNotSentError).cause as NetworkError;
    expect(cause).toBeInstanceOf(NetworkError);
    expect(cause.code).toBe(DEADLINE_CODE);
    expect(cause.message).toMatch(/^The capture service answers too slowly: /);
    // Its deadline: the idle timeout for the service's work, plus a sign-in's answer at 16 KiB/s.
    expect(took).toBeGreaterThan(IDLE_MS);
    expect(took).toBeLessThan(IDLE_MS + 2000 + 1500);
    expect(await kit.fired(), 'sign-in requests').toEqual([1]);
  }, 30_000);

  it('a presign answer sent a byte at a time is given up, though bytes never stop coming', async () => {
    const { manifest } = await registerCapture(kit.svc, [{ name: 'drip.insv', size: 2 * 5 * MiB }]);
    const g = gateway();
    await g.ready();
    await kit.fault({
      target: 'gateway',
      operation: 'presign-missing',
      times: 0,
      action: { type: 'trickle', everyMs: 20, body: 'answer' },
    });
    const err = await within(g.presignMissing(manifest[0]!.uploadId, undefined, 2), 20_000);
    expect(err, 'the presign after 20 s').toBeInstanceOf(NetworkError);
    expect((err as NetworkError).code).toBe(DEADLINE_CODE);
    expect((err as Error).message).toMatch(/answers too slowly: \d+ bytes in \d+ s/);
    expect(await kit.fired(), 'presign calls').toEqual([1]);
  }, 30_000);
});
