import { describe, expect, it } from 'vitest';
import { plainCause } from './causes.js';

describe('plainCause', () => {
  it.each([
    [
      'InternalError: We encountered an internal error. (HTTP 500 on PUT /capture-uploads/captures/x/a.insv)',
      'storage unavailable',
    ],
    ['SlowDown: Please reduce your request rate. (HTTP 503 on PUT /b/k)', 'storage is busy'],
    ['No answer from the service: ECONNREFUSED (PUT 127.0.0.1:9000/b/k)', 'network down'],
    ['No progress for 30 s (PUT storage:443/b/k)', 'network down'],
    [
      'Service Unavailable (HTTP 503 on POST /gateway/upload-service/uploads/u/parts/presign-missing)',
      'capture service unavailable',
    ],
    ['AccessDenied: Request has expired (HTTP 403 on PUT /b/k)', 'URL expired, re-signing'],
    ['/card/a.insv changed while uploading (size 1 bytes, queued with 2): …', 'the file changed on disk'],
    ['/card/a.insv cannot be read (EACCES): this user may not read it; …', 'the file cannot be read'],
    [
      'The service refuses the API key (Invalid API key): fix the API key in the settings',
      'the service refuses the credentials',
    ],
    ['Only INSV, MP4, and CSV files are allowed (HTTP 422 on POST /x)', 'refused by the service'],
    // One problem of the settings or network, whatever the cause
    [
      'The service cannot be reached: its TLS certificate is not trusted (self-signed) (POST gw:443/gateway/x)',
      'service unreachable: check the address and network',
    ],
    [
      'Not registered yet: the service cannot be reached (see the notice for the queue). Sent again at 03:14:00 (attempt 2).',
      'service unreachable: check the address and network',
    ],
    // An answer past its total deadline, a call's or the gateway watcher's (main/api/http.ts, main/engine/parts/stall.ts).
    [
      'The capture service answers too slowly: 12 bytes in 61 s, more than an answer of this call may take (61 s at the slowest link accepted, 16 KiB/s) (POST gw:443/auth/api/v1/users/signin)',
      'the capture service answers too slowly',
    ],
    [
      'The capture gateway answers too slowly: no whole answer for 30 s, its bytes coming slower than the slowest link accepted',
      'the capture service answers too slowly',
    ],
    [null, 'unknown error'],
  ])('%s → %s', (error, cause) => {
    expect(plainCause(error)).toBe(cause);
  });
});
