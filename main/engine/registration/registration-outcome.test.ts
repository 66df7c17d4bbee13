import { describe, expect, it } from 'vitest';
import { HttpStatusError, NetworkError, RequestNotSentError } from '../../api/errors.js';
import { registrationOutcome } from './registration-outcome.js';

const req = { method: 'POST', path: '/gateway/captures/api/v1/external-captures/add-capture' };

describe('registrationOutcome (add-capture is not idempotent)', () => {
  it.each([
    ['sign-in failed first', new RequestNotSentError(new Error('Invalid email or password'))],
    ['connection refused', new NetworkError('No answer from the service: ECONNREFUSED', req, 'ECONNREFUSED')],
    ['503 with Retry-After', new HttpStatusError('Service Unavailable', 503, req, undefined, 0)],
    ['429', new HttpStatusError('Too many requests', 429, req)],
  ])('%s: not registered, so it is sent again on the retry schedule', (_, err) => {
    expect(registrationOutcome(err)).toMatchObject({
      state: 'queued',
      message: expect.stringMatching(/^Not registered yet: /),
    });
  });

  it('429 and 503 carry the wait their Retry-After asked for (RFC 6585, RFC 9110: not processed)', () => {
    expect(registrationOutcome(new HttpStatusError('Too many requests', 429, req))).toMatchObject({ state: 'queued' });
    expect(registrationOutcome(new HttpStatusError('Too many requests', 429, req, undefined, 30_000))).toMatchObject({
      state: 'queued',
      retryAfterMs: 30_000,
    });
    expect(registrationOutcome(new HttpStatusError('Service Unavailable', 503, req, undefined, 5_000))).toMatchObject({
      state: 'queued',
      retryAfterMs: 5_000,
    });
  });

  it('a 422 is the service refusing the capture, with its message', () => {
    const outcome = registrationOutcome(new HttpStatusError('Only INSV, MP4, and CSV files are allowed', 422, req));
    expect(outcome).toEqual({
      state: 'rejected',
      message:
        'The service refused this capture: Only INSV, MP4, and CSV files are allowed. Correct the capture and register it again.',
    });
  });

  it.each([
    ['a reset after sending', new NetworkError('No answer from the service: ECONNRESET', req, 'ECONNRESET')],
    ['a timeout', new NetworkError('No answer from the service: ETIMEDOUT', req, 'ETIMEDOUT')],
    ['a gateway timeout', new HttpStatusError('Gateway Timeout', 504, req)],
    ['500 (a server may fail after it acted)', new HttpStatusError('Internal Server Error', 500, req)],
    [
      '503 without Retry-After (a proxy whose connection to the service ended, maybe after it acted)',
      new HttpStatusError('Service Unavailable', 503, req),
    ],
    [
      '502 (a proxy in front may lose the answer after the service acted)',
      new HttpStatusError('Bad Gateway', 502, req, undefined, 1000),
    ],
  ])('%s: the service may have it, so a person decides', (_, err) => {
    expect(registrationOutcome(err)).toMatchObject({
      state: 'registration_unknown',
      message: expect.stringMatching(/may or may not have this capture/),
    });
  });
});
