import { describe, expect, it } from 'vitest';
import { AnswerLostError } from '../engine/part-upload.js';
import {
  CancelledError,
  CredentialsRefusedError,
  FileChangedError,
  HttpStatusError,
  LocalFileError,
  NetworkError,
  PartIntegrityError,
  RequestNotSentError,
  StorageRefusedError,
  classifyError,
  credentialsRefusal,
  describeRequest,
  isTransient,
  reasonOf,
} from './errors.js';

const put = { method: 'PUT', path: '/capture-uploads/captures/x/file.mp4' };
const call = { method: 'POST', path: '/gateway/capture-uploads/presign-missing' };
const s3 = (status: number, code: string) => new HttpStatusError(`${code}: from storage`, status, put, code);

// capture-upload-interface.md §7, "Retry classification (client guidance)", row by row, plus the
// two sentences under the table (missing ETag, cancellation). `fromStorage` is true for part PUTs.
describe('classifyError follows the §7 retry table', () => {
  it.each([
    [
      'network error (reset)',
      new NetworkError('No answer from the service: ECONNRESET', put, 'ECONNRESET'),
      true,
      'retry',
    ],
    [
      'network error (refused), service call',
      new NetworkError('No answer from the service: ECONNREFUSED', call, 'ECONNREFUSED'),
      false,
      'retry',
    ],
    ['timeout', new NetworkError('No answer from the service: ETIMEDOUT', put, 'ETIMEDOUT'), true, 'retry'],
    ['answer lost after the last byte', new AnswerLostError('No answer', put, 'ETIMEDOUT', '"abc"'), true, 'retry'],
    ['storage 500', s3(500, 'InternalError'), true, 'retry'],
    ['storage 503 SlowDown', s3(503, 'SlowDown'), true, 'slowdown'],
    ['storage 429', new HttpStatusError('Too many requests', 429, put), true, 'slowdown'],
    ['storage 503 without S3 XML', new HttpStatusError('Storage answered 503', 503, put), true, 'slowdown'],
    ['service 503 is retried on the backoff', new HttpStatusError('Service Unavailable', 503, call), false, 'retry'],
    [
      'storage refusing even fresh URLs',
      new StorageRefusedError('Storage refused part 1', new HttpStatusError('Forbidden', 403, put)),
      true,
      'retry',
    ],
    ['storage RequestTimeout (a 400)', s3(400, 'RequestTimeout'), true, 'retry'],
    ['storage 403', new HttpStatusError('Forbidden', 403, put), true, 'resign'],
    ['storage AccessDenied', s3(403, 'AccessDenied'), true, 'resign'],
    ['storage other 4xx (InvalidPart)', s3(400, 'InvalidPart'), true, 'fail'],
    [
      'service 422 validation',
      new HttpStatusError('Only INSV, MP4, and CSV files are allowed', 422, call),
      false,
      'fail',
    ],
    ['service 404', new HttpStatusError('Upload not found', 404, call), false, 'fail'],
    ['service 5xx', new HttpStatusError('Bad Gateway', 502, call), false, 'retry'],
    ['service 401: sign in again', new HttpStatusError('Unauthorized', 401, call), false, 'reauth'],
    ['service 403 is not a presigned URL', new HttpStatusError('Forbidden', 403, call), false, 'fail'],
    ['missing ETag', new PartIntegrityError('Storage answered part 3 without an ETag'), true, 'retry'],
    ['cancellation', new CancelledError(), true, 'cancel'],
    ['cancellation of a service call', new CancelledError(), false, 'cancel'],
    [
      'sign-in refused the account',
      new RequestNotSentError(new HttpStatusError('Invalid email or password', 401, call)),
      false,
      'fail',
    ],
    [
      'sign-in unreachable',
      new RequestNotSentError(new NetworkError('No answer', call, 'ECONNREFUSED')),
      false,
      'retry',
    ],
    ['unreadable file', new LocalFileError('/media/card/VID.insv', 'EACCES'), true, 'fail'],
    ['changed file', new FileChangedError('/media/card/VID.insv', 'size 1 bytes, queued with 2'), true, 'fail'],
  ] as const)('%s → %s', (_, err, fromStorage, action) => {
    expect(classifyError(err, fromStorage)).toBe(action);
  });

  it.each([
    [new NetworkError('x', put, 'ECONNRESET'), true],
    [s3(500, 'InternalError'), true],
    [s3(503, 'SlowDown'), true],
    [s3(400, 'RequestTimeout'), true],
    [
      new StorageRefusedError(
        'Storage refused part 1 of a.mp4 4 times',
        new HttpStatusError('Storage answered 403 with a web page', 403, put),
      ),
      true,
    ],
    [new HttpStatusError('Bad Gateway', 502, call), true],
    [new PartIntegrityError('no ETag'), true],
    [new HttpStatusError('Only INSV, MP4, and CSV files are allowed', 422, call), false],
    [new LocalFileError('/media/card/a.mp4', 'ENOENT'), false],
    [new FileChangedError('/media/card/a.mp4', 'changed'), false],
    [new Error('something unexpected'), false],
  ] as const)('isTransient(%s) is %s: only what may pass by itself waits for the retry schedule', (err, transient) => {
    expect(isTransient(err)).toBe(transient);
  });
});

describe('credentialsRefusal: refusals that concern the whole queue', () => {
  it.each([
    [
      'wrong password at sign-in',
      new RequestNotSentError(new HttpStatusError('Invalid email or password', 401, call)),
      /email or password/,
    ],
    ['wrong API key', new HttpStatusError('Invalid API key', 403, call), /fix the API key/],
    ['401 after a fresh sign-in', new HttpStatusError('Unauthorized', 401, call), /account/],
    ['wrong project id', new HttpStatusError('Does not have access to the project', 400, call), /project id/],
    [
      'project closed',
      new HttpStatusError('Access restricted: Project is not in an allowed stage. Current stage: Deleted', 403, call),
      /opened/,
    ],
  ])('%s stops the queue with what to fix', (_, err, advice) => {
    const refused = credentialsRefusal(err);
    expect(refused).toBeInstanceOf(CredentialsRefusedError);
    expect(refused!.message).toMatch(advice);
  });

  it.each([
    ['an expired presigned URL (storage 403)', s3(403, 'AccessDenied')],
    ['a validation 422', new HttpStatusError('No more than 3 files are allowed', 422, call)],
    ['sign-in unreachable', new RequestNotSentError(new NetworkError('No answer', call, 'ECONNREFUSED'))],
    ['a gateway 503', new HttpStatusError('Service Unavailable', 503, call)],
    // A 403 that names neither the API key nor the project's stage concerns its own capture or file.
    ['a gateway 403 on one upload', new HttpStatusError('Forbidden: this upload belongs to another user', 403, call)],
    ['a gateway 403 with no message', new HttpStatusError('The service answered 403', 403, call)],
    [
      'a storage 403 with an HTML page',
      new HttpStatusError("Storage answered 403 with a web page instead of S3's XML", 403, put),
    ],
    [
      'storage refusing even fresh URLs',
      new StorageRefusedError('Storage refused part 1 of a.mp4 4 times', new HttpStatusError('Forbidden', 403, put)),
    ],
  ])('%s concerns only its own call', (_, err) => {
    expect(credentialsRefusal(err)).toBeUndefined();
  });
});

describe('what a failed request says about itself', () => {
  it('names host and port, never the query (signatures, tokens)', () => {
    const req = describeRequest(
      'PUT',
      'https://storage.example.com/bucket/key?X-Amz-Signature=secret&X-Amz-Credential=AKIA',
    );
    expect(req).toEqual({ method: 'PUT', path: '/bucket/key', host: 'storage.example.com:443' });
    const err = new NetworkError(
      'No answer from the service: ECONNREFUSED',
      describeRequest('POST', 'http://127.0.0.1:9/gateway/x?token=t'),
      'ECONNREFUSED',
    );
    expect(reasonOf(err)).toBe('No answer from the service: ECONNREFUSED (POST 127.0.0.1:9/gateway/x)');
    expect(reasonOf(err)).not.toMatch(/token|secret/);
  });
});
