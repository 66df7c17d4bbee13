import { describe, expect, it } from 'vitest';
import { serviceMessage, s3CodeOf } from './http.js';
import { parseS3Error } from './s3-error.js';

describe('S3 error documents', () => {
  it('reads Code and Message of an error document with its XML prolog', () => {
    const doc =
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Request has expired</Message><RequestId>1</RequestId></Error>';
    expect(parseS3Error(doc)).toEqual({ code: 'AccessDenied', message: 'Request has expired' });
    expect(serviceMessage(doc)).toBe('AccessDenied: Request has expired');
    expect(s3CodeOf(doc)).toBe('AccessDenied');
  });

  it('gives the code alone for an empty Message, as Ceph RGW writes one (e2e/rgw.test.ts)', () => {
    const doc =
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message></Message><RequestId>tx0-default</RequestId></Error>';
    expect(serviceMessage(doc)).toBe('SignatureDoesNotMatch');
  });

  it('decodes character and entity references, and CDATA, as XML defines them', () => {
    const doc =
      '<Error xmlns="http://s3.amazonaws.com/doc/2006-03-01/">\n  <Code>InvalidPart</Code>\n' +
      '  <Message>Part 2 ETag &#34;9e107d9d&#34; &amp; &quot;e4d9&quot; do not match &#x3C;stored&#x3E; &lt;x&gt; &apos;y&apos;</Message>\n</Error>';
    expect(parseS3Error(doc)).toEqual({
      code: 'InvalidPart',
      message: 'Part 2 ETag "9e107d9d" & "e4d9" do not match <stored> <x> \'y\'',
    });
    expect(
      parseS3Error('<Error><Code>SlowDown</Code><Message><![CDATA[Reduce your rate & <retry>]]></Message></Error>'),
    ).toEqual({
      code: 'SlowDown',
      message: 'Reduce your rate & <retry>',
    });
  });

  it('reads only Code and Message: what S3 echoes of the signature stays out of the message', () => {
    const doc =
      '<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message>' +
      '<StringToSign>AWS4-HMAC-SHA256 secret-ish</StringToSign><SignatureProvided>abcdef0123</SignatureProvided></Error>';
    const message = serviceMessage(doc)!;
    expect(message).toBe('SignatureDoesNotMatch: The request signature we calculated does not match');
    expect(message).not.toMatch(/abcdef0123|secret-ish/);
  });

  it('is not fooled by other documents', () => {
    expect(parseS3Error('')).toBeUndefined();
    expect(parseS3Error('<ListPartsResult><Code>x</Code></ListPartsResult>')).toBeUndefined();
    expect(parseS3Error('<Error><Message>no code</Message></Error>')).toBeUndefined();
    expect(parseS3Error('<html><body>502 Bad Gateway</body></html>')).toBeUndefined();
    expect(serviceMessage('{"success":false,"message":"Structure not found"}')).toBe('Structure not found');
  });
});
