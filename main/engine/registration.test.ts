import { describe, expect, it } from 'vitest';
import { HttpStatusError, NetworkError, RequestNotSentError } from '../api/errors.js';
import { registrationOutcome } from './registration.js';

const req = { method: 'POST', path: '/gateway/captures/api/v1/external-captures/add-capture' };

describe('registrationOutcome (add-capture is not idempotent)', () => {
  it.each([
    ['sign-in failed first', new RequestNotSentError(new Error('Invalid email or password'))],
    ['connection refused', new NetworkError('No answer from the service: ECONNREFUSED', req, 'ECONNREFUSED')],
    ['503', new HttpStatusError('Service Unavailable', 503, req)],
    ['429', new HttpStatusError('Too many requests', 429, req)],
  ])('%s: not registered, so it is sent again on the retry schedule', (_, err) => {
    expect(registrationOutcome(err)).toMatchObject({ state: 'queued', message: expect.stringMatching(/^Not registered yet: /) });
  });

  it('a 422 is the service refusing the capture, with its message', () => {
    const outcome = registrationOutcome(new HttpStatusError('Only INSV, MP4, and CSV files are allowed', 422, req));
    expect(outcome).toEqual({
      state: 'rejected',
      message: 'The service refused this capture: Only INSV, MP4, and CSV files are allowed. Correct the capture and register it again.',
    });
  });

  it.each([
    ['a reset after sending', new NetworkError('No answer from the service: ECONNRESET', req, 'ECONNRESET')],
    ['a timeout', new NetworkError('No answer from the service: ETIMEDOUT', req, 'ETIMEDOUT')],
    ['a gateway timeout', new HttpStatusError('Gateway Timeout', 504, req)],
  ])('%s: the service may have it, so a person decides', (_, err) => {
    expect(registrationOutcome(err)).toMatchObject({ state: 'registration_unknown', message: expect.stringMatching(/may or may not have this capture/) });
  });
});
