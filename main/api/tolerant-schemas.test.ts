import { describe, expect, it } from 'vitest';
import { urlLifetimeSeconds } from '../engine/parts/presigned-urls.js';
import { absentFields, addCaptureResponse, interfaceFields, isFinalized } from './schemas.js';

// The tolerant reader's rules (docs/decisions/0003-tolerant-reader.md), one by one.

describe("isFinalized: complete-batch's ok/status decide", () => {
  it('reads status first, then ok with no part missing', () => {
    expect(isFinalized({ status: 'completed' })).toBe(true);
    expect(isFinalized({ ok: true, status: 'uploading', missingParts: [] })).toBe(false);
    expect(isFinalized({ ok: true })).toBe(true);
    expect(isFinalized({ ok: true, missingParts: [] })).toBe(true);
    expect(isFinalized({ ok: true, missingParts: [3] })).toBe(false);
    expect(isFinalized({ ok: false })).toBe(false);
    expect(isFinalized({})).toBe(false);
  });
});

describe('absentFields', () => {
  it('names each listed field an answer lacks, through arrays', () => {
    const answer = {
      result: [
        {
          capture: { captureId: 'c' },
          uploadManifest: [
            { uploadId: 'u', partSize: 5, frameIndex: 1 },
            { uploadId: 'v', partSize: 5 },
          ],
        },
      ],
    };
    expect(addCaptureResponse.safeParse(answer).success).toBe(true);
    const absent = absentFields(answer, interfaceFields['add-capture']);
    expect(absent).toContain('success');
    expect(absent).toContain('result.*.capture.project');
    expect(absent).toContain('result.*.uploadManifest.*.frameIndex'); // the second entry lacks it
    expect(absent).not.toContain('result.*.uploadManifest.*.uploadId');
    expect(absent).not.toContain('result.*.capture.captureId');
  });

  it('an answer without a captureId or an uploadId is not a registration', () => {
    expect(
      addCaptureResponse.safeParse({ result: [{ capture: {}, uploadManifest: [{ uploadId: 'u', partSize: 5 }] }] })
        .success,
    ).toBe(false);
    expect(
      addCaptureResponse.safeParse({ result: [{ capture: { captureId: 'c' }, uploadManifest: [{ partSize: 5 }] }] })
        .success,
    ).toBe(false);
  });
});

describe("urlLifetimeSeconds: a presigned URL's lifetime when the answer gave none", () => {
  it('reads X-Amz-Expires, else assumes 900 s', () => {
    expect(urlLifetimeSeconds('https://s3.example/b/k?X-Amz-Expires=3600&X-Amz-Signature=abc')).toBe(3600);
    expect(urlLifetimeSeconds('https://s3.example/b/k?sig=abc')).toBe(900);
    expect(urlLifetimeSeconds('not a url')).toBe(900);
  });
});
