import { describe, expect, it } from 'vitest';
import { useServiceKit } from '../testing/kit.js';
import { CancelledError, HttpStatusError, NetworkError, ResponseShapeError } from './errors.js';
import { UnreachableError } from './unreachable-error.js';
import { CaptureGateway } from './gateway.js';
import { isRetriedCallError, withRetries } from './retry.js';

// One owner for the retries of a JSON call: withRetries, with got's own retry off.

const request = { method: 'POST', path: '/x' };
const policy = (retries: number) => ({ retries, delayMs: () => 1 });

/** An attempt that fails with `errors` in turn, then answers 'ok'; counts its calls. */
function script(...errors: Error[]) {
  const s = { calls: 0, run: async () => (s.calls++ < errors.length ? Promise.reject(errors[s.calls - 1]!) : 'ok') };
  return s;
}

describe('withRetries: what a JSON call is sent again for (§7)', () => {
  it('sends again after 503, 429, 408 and a reset connection, then answers', async () => {
    const s = script(
      new HttpStatusError('busy', 503, request),
      new HttpStatusError('slow', 429, request),
      new HttpStatusError('late', 408, request),
      new NetworkError('reset', request, 'ECONNRESET'),
    );
    await expect(withRetries(policy(4), s.run)).resolves.toBe('ok');
    expect(s.calls).toBe(5);
  });

  it('gives up after 1 + retries tries with the last error', async () => {
    const last = new HttpStatusError('down', 502, request);
    const s = script(new HttpStatusError('down', 500, request), new HttpStatusError('down', 500, request), last);
    await expect(withRetries(policy(2), s.run)).rejects.toBe(last);
    expect(s.calls).toBe(3);
  });

  it.each([
    ['a refusal (400)', new HttpStatusError('bad', 400, request)],
    ['a 401 (the gateway signs in again itself)', new HttpStatusError('who', 401, request)],
    ["a web page in the service's place", new UnreachableError('a captive portal', request, 'HTML_ANSWER')],
    ['an untrusted certificate', new UnreachableError('untrusted', request, 'DEPTH_ZERO_SELF_SIGNED_CERT')],
    ['an answer of the wrong shape', new ResponseShapeError('shape', request)],
    [
      'a Retry-After longer than a minute (the durable schedule waits that out)',
      new HttpStatusError('later', 503, request, undefined, 120_000),
    ],
  ])('does not send again after %s', async (_name, err) => {
    const s = script(err);
    await expect(withRetries(policy(4), s.run)).rejects.toBe(err);
    expect(s.calls).toBe(1);
    expect(isRetriedCallError(err)).toBe(false);
  });

  it('stops at once when cancelled during the wait: no further try', async () => {
    const controller = new AbortController();
    const s = { calls: 0, run: async () => (s.calls++, Promise.reject(new HttpStatusError('down', 500, request))) };
    const pending = withRetries({ retries: 4, delayMs: () => 60_000 }, s.run, controller.signal);
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
    expect(s.calls).toBe(1);
  });

  it('never starts a try when already cancelled', async () => {
    const s = script();
    await expect(withRetries(policy(4), s.run, AbortSignal.abort())).rejects.toBeInstanceOf(CancelledError);
    expect(s.calls).toBe(0);
  });
});

describe('the gateway client: one layer of retries, and abortAll stops calls', () => {
  const kit = useServiceKit('retry-test');

  const gateway = (retries: number) => {
    const { info } = kit.svc;
    return new CaptureGateway(
      { baseUrl: info.baseUrl, authUrl: info.authUrl, apiKey: info.apiKey, projectId: info.projectId, ...info.account },
      { retry: { retries, delayMs: () => 5 }, timeoutMs: 30_000 },
    );
  };

  it('a status read answering 503 every time reaches the gateway exactly 1 + retries times', async () => {
    await kit.fault({ target: 'gateway', operation: 'status', times: 0, action: { type: 'status', status: 503 } });
    const err = await gateway(3)
      .uploadStatus('no-such-upload', false)
      .catch((e: unknown) => e);
    expect((err as HttpStatusError).status).toBe(503);
    expect(await kit.fired()).toEqual([4]);
  });

  it('add-capture answering 503 is sent once: it is not idempotent', async () => {
    await kit.fault({ target: 'gateway', operation: 'add-capture', times: 0, action: { type: 'status', status: 503 } });
    const err = await gateway(3)
      .addCaptures([])
      .catch((e: unknown) => e);
    expect((err as HttpStatusError).status).toBe(503);
    expect(await kit.fired()).toEqual([1]);
  });

  it('abortAll stops a call that is waiting for its answer, with CancelledError', async () => {
    const g = gateway(3);
    await g.ready();
    await kit.fault({ target: 'gateway', operation: 'status', action: { type: 'hang' } });
    const pending = g.uploadStatus('no-such-upload', false).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    g.abortAll();
    expect(await pending).toBeInstanceOf(CancelledError);
    expect(await kit.fired()).toEqual([1]);
  });
});
