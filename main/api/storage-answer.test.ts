import { describe, expect, it } from 'vitest';
import { etagIsPartMd5, retryAfterMs, storageErrorMessage } from './storage-answer.js';

describe('etagIsPartMd5: which headers say the ETag is the MD5', () => {
  it.each([
    [{}, true],
    [{ 'x-amz-server-side-encryption': 'AES256' }, true],
    [{ 'x-amz-server-side-encryption': 'aws:kms' }, false],
    [{ 'x-amz-server-side-encryption': 'aws:kms:dsse' }, false],
    [{ 'x-amz-server-side-encryption-customer-algorithm': 'AES256' }, false],
  ])('%j → %s', (headers, md5) => {
    expect(etagIsPartMd5(headers)).toBe(md5);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-11-24T18:00:00Z');
  it.each([
    ['2', 2000],
    [' 0 ', 0],
    ['Tue, 24 Nov 2026 18:00:05 GMT', 5000],
    ['Tue, 24 Nov 2026 17:00:00 GMT', 0],
    ['86400', 600_000],
    ['soon', undefined],
    [undefined, undefined],
  ])('%s → %s ms', (value, ms) => {
    expect(retryAfterMs(value, now)).toBe(ms);
  });
});

describe('storageErrorMessage', () => {
  it("reads S3's error XML", () => {
    expect(
      storageErrorMessage(403, '<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>', {}),
    ).toBe('AccessDenied: Request has expired');
  });
  it('gives the code alone when the message is empty, as Ceph RGW answers an expired URL (e2e/rgw.test.ts)', () => {
    const rgw =
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message></Message><RequestId>tx00000332d46bef64ae800-006b091f9a-100d-default</RequestId><HostId>100d-default-default</HostId></Error>';
    expect(storageErrorMessage(403, rgw, { 'content-type': 'application/xml' })).toBe('AccessDenied');
    expect(storageErrorMessage(403, '<Error><Code>AccessDenied</Code><Message> </Message></Error>', {})).toBe(
      'AccessDenied',
    );
  });
  it('says a web page came instead, and what may stand in between', () => {
    const msg = storageErrorMessage(403, '<!DOCTYPE html><html><body>Blocked</body></html>', {
      'content-type': 'text/html; charset=utf-8',
    });
    expect(msg).toMatch(
      /^Storage answered 403 with a web page instead of S3's XML: a proxy, firewall or network sign-in page/,
    );
    expect(storageErrorMessage(403, '<html><body>x</body></html>', {})).toMatch(/web page/);
  });
  it('names the status of an empty or unknown body', () => {
    expect(storageErrorMessage(503, '', {})).toBe('Storage answered 503');
    expect(storageErrorMessage(502, 'bad gateway', { 'content-type': 'text/plain' })).toBe(
      "Storage answered 502 without S3's error XML",
    );
  });
});
