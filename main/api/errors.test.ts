import { describe, expect, it } from 'vitest';
import {
  CredentialsRefusedError,
  HttpStatusError,
  NetworkError,
  RequestNotSentError,
  StorageRefusedError,
  credentialsRefusal,
  describeRequest,
  reasonOf,
} from './errors.js';

const put = { method: 'PUT', path: '/capture-uploads/captures/x/file.mp4' };
const call = { method: 'POST', path: '/gateway/capture-uploads/presign-missing' };
const s3 = (status: number, code: string) => new HttpStatusError(`${code}: from storage`, status, put, code);

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
