import { describe, expect, it } from 'vitest';
import { AnswerLostError } from '../engine/parts/part-put.js';
import {
  CancelledError,
  FileChangedError,
  HttpStatusError,
  LocalFileError,
  NetworkError,
  PartIntegrityError,
  PresignAnswerError,
  RequestNotSentError,
  ResponseShapeError,
  StorageRefusedError,
} from './errors.js';
import type { RequestSide } from './retry-table.js';
import { DEADLINE_CODE, RETRY_TABLE, isPassing, retryDecision } from './retry-table.js';
import { UnreachableError } from './unreachable-error.js';

// capture-upload-interface.md §7, "Retry classification (client guidance)", row by row, with the
// two sentences under it (missing ETag, cancellation) and §8's per-request retries: one decision
// for a part PUT and for a service call alike (retry-table.ts). Each case gives what the
// request's own layer does and whether the durable schedule tries the file again (`passing`).

const put = { method: 'PUT', path: '/capture-uploads/captures/x/file.mp4' };
const call = { method: 'POST', path: '/gateway/upload-service/uploads/u/parts/presign-missing' };
const s3 = (status: number, code: string) => new HttpStatusError(`${code}: from storage`, status, put, code);
const st = (status: number, req = put, retryAfterMs?: number) =>
  new HttpStatusError(`answered ${status}`, status, req, undefined, retryAfterMs);

type Case = [name: string, err: unknown, side: RequestSide, action: string, passing: boolean];

const CASES: Case[] = [
  // Network error or timeout: Yes, backoff and retry the same call.
  ['a reset part PUT', new NetworkError('ECONNRESET', put, 'ECONNRESET'), 'storage', 'retry', true],
  ['a part stalled', new NetworkError('No progress for 30 s', put, 'ESTALLED'), 'storage', 'retry', true],
  [
    'a part whose answer was lost after its last byte',
    new AnswerLostError('No answer', put, 'ESTALLED', '"abc"'),
    'storage',
    'retry',
    true,
  ],
  ['a refused call', new NetworkError('ECONNREFUSED', call, 'ECONNREFUSED'), 'call', 'retry', true],
  ['a call timed out', new NetworkError('ETIMEDOUT', call, 'ETIMEDOUT'), 'call', 'retry', true],
  [
    'a call to a name that does not resolve',
    new UnreachableError('the name cannot be resolved', call, 'ENOTFOUND'),
    'call',
    'retry',
    true,
  ],
  ['a call failing with an unknown code', new NetworkError('odd', call, 'EWEIRD'), 'call', 'fail', true],
  // Unreachable: not repeated at once, but the settings or network may be corrected.
  ["a web page in the service's place", new UnreachableError('portal', call, 'HTML_ANSWER'), 'call', 'fail', true],
  [
    'an untrusted certificate',
    new UnreachableError('untrusted', call, 'DEPTH_ZERO_SELF_SIGNED_CERT'),
    'call',
    'fail',
    true,
  ],
  // An answer past its whole deadline (a trickle): given up, said, tried again on the schedule.
  ['a call answered too slowly', new NetworkError('too slow', call, DEADLINE_CODE), 'call', 'fail', true],
  ['a part answered too slowly', new NetworkError('too slow', put, DEADLINE_CODE), 'storage', 'fail', true],
  // Storage 5xx: Yes, backoff and retry the same PUT; the service's alike (§8: every call).
  ['storage 500', s3(500, 'InternalError'), 'storage', 'retry', true],
  ['storage 502', st(502), 'storage', 'retry', true],
  ['storage 504', st(504), 'storage', 'retry', true],
  ['the gateway 500', st(500, call), 'call', 'retry', true],
  ['the gateway 502', st(502, call), 'call', 'retry', true],
  ['a CDN 522 before the gateway', st(522, call), 'call', 'retry', true],
  // 501 and 505 are 5xx: retried per request, and then never passing.
  ['storage 501', st(501), 'storage', 'retry', false],
  ['storage 505', st(505), 'storage', 'retry', false],
  ['the gateway 501', st(501, call), 'call', 'retry', false],
  ['the gateway 505', st(505, call), 'call', 'retry', false],
  // 429 and SlowDown: the queue waits (storage); a call waits its Retry-After.
  ['storage 503 SlowDown', s3(503, 'SlowDown'), 'storage', 'slowdown', true],
  ['storage 503 without S3 XML', st(503), 'storage', 'slowdown', true],
  ['storage 429', st(429), 'storage', 'slowdown', true],
  ['the gateway 503', st(503, call), 'call', 'retry', true],
  ['the gateway 429', st(429, call), 'call', 'retry', true],
  ['the gateway 503 asking for two minutes', st(503, call, 120_000), 'call', 'fail', true],
  ['the gateway 429 asking for two minutes', st(429, call, 120_000), 'call', 'fail', true],
  // Storage RequestTimeout (a 4xx): Yes.
  ['storage RequestTimeout (a 400)', s3(400, 'RequestTimeout'), 'storage', 'retry', true],
  ['a call answered 408', st(408, call), 'call', 'retry', true],
  // Storage 403 / AccessDenied: presign again; refused even then, something in between.
  ['storage 403', st(403), 'storage', 'resign', false],
  ['storage AccessDenied', s3(403, 'AccessDenied'), 'storage', 'resign', false],
  [
    'storage refusing even fresh URLs',
    new StorageRefusedError('Storage refused part 1 4 times', st(403)),
    'storage',
    'retry',
    true,
  ],
  ['a gateway 403 is no presigned URL', st(403, call), 'call', 'fail', false],
  // A missing ETag counts as a failed part and is retried.
  ['missing ETag', new PartIntegrityError('no ETag'), 'storage', 'retry', true],
  // 401: sign in again once (the gateway does); from sign-in itself, the account is wrong.
  ['the gateway 401', st(401, call), 'call', 'reauth', false],
  ['sign-in refused the account', new RequestNotSentError(st(401, call)), 'call', 'fail', false],
  ['sign-in unreachable', new RequestNotSentError(new NetworkError('x', call, 'ECONNREFUSED')), 'call', 'retry', true],
  ['sign-in answered 503', new RequestNotSentError(st(503, call)), 'call', 'retry', true],
  // Other 4xx (e.g. validation): No; fail the file and report it.
  ['storage InvalidPart (a 400)', s3(400, 'InvalidPart'), 'storage', 'fail', false],
  ['a 422 validation', st(422, call), 'call', 'fail', false],
  ['the gateway 404', st(404, call), 'call', 'fail', false],
  // Cancellation stops retries at once.
  ['cancelled part', new CancelledError(), 'storage', 'cancel', false],
  ['cancelled call', new CancelledError(), 'call', 'cancel', false],
  // Not the network's: the file itself, or an answer of the wrong shape.
  ['an unreadable file', new LocalFileError('/media/card/VID.insv', 'EACCES'), 'storage', 'fail', false],
  // A card's EIO is the card's (the scheduler tries it again shortly); this computer's own is a local fault.
  ['a card answering EIO', new LocalFileError('/media/u/X4/DCIM/Camera01/VID.insv', 'EIO'), 'storage', 'fail', false],
  ['a Windows drive answering EIO', new LocalFileError('E:\\DCIM\\VID.insv', 'EIO'), 'storage', 'fail', false],
  [
    "this computer's own disk answering EIO",
    new LocalFileError('/home/u/Videos/walk.mp4', 'EIO'),
    'storage',
    'stop',
    false,
  ],
  [
    'memory refused reading a card',
    new LocalFileError('/media/u/X4/DCIM/VID.insv', 'ENOMEM'),
    'storage',
    'stop',
    false,
  ],
  [
    'the queue out of memory',
    Object.assign(new Error('out of memory'), { code: 'SQLITE_NOMEM' }),
    'call',
    'stop',
    false,
  ],
  ['an allocation refused', new RangeError('Array buffer allocation failed'), 'call', 'stop', false],
  ['a changed file', new FileChangedError('/media/card/VID.insv', 'size'), 'storage', 'fail', false],
  ['an answer of the wrong shape', new ResponseShapeError('shape', call), 'call', 'fail', false],
  // A presign answer that does not fit the file: asked again within the call, then a person.
  [
    'a presign answer listing part 10001 for a 3-part file',
    new PresignAnswerError('clip.mp4', 'the capture service listed part 10001 for a 3-part file', call),
    'call',
    'retry',
    false,
  ],
  ['anything else', new Error('unexpected'), 'call', 'fail', false],
];

describe('the one retry decision follows §7 and §8, for parts and calls alike', () => {
  it.each(CASES)('%s (%s) → %s as a %s, passing %s', (_name, err, side, action, passing) => {
    const d = retryDecision(err, side);
    expect([d.action, d.passing]).toEqual([action, passing]);
  });

  it('every row of the table decides at least one case above', () => {
    const used = new Set(CASES.map(([, err, side]) => retryDecision(err, side).row));
    expect(RETRY_TABLE.map((r) => r.row).filter((row) => !used.has(row))).toEqual([]);
  });

  it('the durable schedule takes the side from the request: a PUT as storage, any other as a call', () => {
    expect(isPassing(st(503))).toBe(true);
    expect(isPassing(st(503, call))).toBe(true);
    expect(isPassing(st(501))).toBe(false);
    expect(isPassing(st(505, call))).toBe(false);
    expect(isPassing(st(403, call))).toBe(false);
    expect(isPassing(new PartIntegrityError('no ETag'))).toBe(true);
    expect(isPassing(new LocalFileError('/media/card/a.mp4', 'ENOENT'))).toBe(false);
  });
});
