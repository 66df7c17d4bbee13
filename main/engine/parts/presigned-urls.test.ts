import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CredentialsRefusedError, HttpStatusError, NetworkError, PresignAnswerError } from '../../api/errors.js';
import { isPassing } from '../../api/retry-table.js';
import type { CaptureGateway } from '../../api/gateway.js';
import type { PresignResponse } from '../../api/schemas.js';
import { PresignedUrls, partUrlProblem, presignAnswerProblem } from './presigned-urls.js';

// Presigned part URLs (§4.5): reused while they have time left, renewed when close to expiry
// (uppy #1724, #3612: URLs signed long before use expire mid-upload), re-signed after a refusal,
// kept through a network error; concurrent requests share one presign-missing call.

const request = { method: 'POST', path: '/presign-missing' };

/** A gateway whose presign-missing lists `missing` with URLs valid `expiresIn` seconds; each answer is numbered. */
function fakeGateway(opts: { missing: number[]; expiresIn?: number }) {
  const g = {
    calls: 0,
    missing: opts.missing,
    fail: undefined as Error | undefined,
    async presignMissing(
      uploadId: string,
      _signal?: AbortSignal,
      _parts?: number,
      check?: (answer: PresignResponse, req: typeof request) => void,
    ): Promise<PresignResponse> {
      const n = ++g.calls;
      await Promise.resolve();
      if (g.fail) throw g.fail;
      const answer = g.answer(uploadId, n);
      check?.(answer, request);
      return answer;
    },
    answer(uploadId: string, n: number): PresignResponse {
      return {
        ok: true,
        uploadId,
        partSize: 5 * 1024 * 1024,
        totalParts: 4,
        parts: g.missing.map((p) => ({
          partNumber: p,
          url: `https://storage.example/u/${p}?sig=${n}`,
          expiresIn: opts.expiresIn ?? 3600,
        })),
      };
    },
  };
  return g;
}
const FILE = { fileName: 'clip.mp4', totalParts: 4, partSize: 5 * 1024 * 1024 };
const urlsOf = (g: ReturnType<typeof fakeGateway>) =>
  new PresignedUrls(g as unknown as CaptureGateway, 'u-1', undefined, FILE);

// Lifetimes run on the monotonic clock: the test moves performance.now() with the date.
beforeEach(() => vi.useFakeTimers({ now: new Date('2026-11-25T08:00:00Z'), toFake: ['Date', 'performance'] }));
afterEach(() => vi.useRealTimers());

describe('PresignedUrls', () => {
  it('four parts asked for at once share one presign-missing call', async () => {
    const g = fakeGateway({ missing: [1, 2, 3, 4] });
    const urls = urlsOf(g);
    expect(await Promise.all([1, 2, 3, 4].map((n) => urls.get(n)))).toEqual(
      [1, 2, 3, 4].map((n) => `https://storage.example/u/${n}?sig=1`),
    );
    expect(g.calls).toBe(1);
  });

  it('a URL with most of its lifetime left is reused; one with under a minute left (1 h URLs) is renewed', async () => {
    const g = fakeGateway({ missing: [1, 2] });
    const urls = urlsOf(g);
    expect(await urls.get(1)).toMatch(/sig=1$/);
    vi.advanceTimersByTime(58 * 60_000); // 2 min left
    expect(await urls.get(2)).toMatch(/sig=1$/);
    expect(g.calls).toBe(1);
    vi.advanceTimersByTime(60_000 + 1); // just under 1 min left
    expect(await urls.get(1)).toMatch(/sig=2$/);
    expect(g.calls).toBe(2);
  });

  it('short-lived URLs (60 s) are renewed once under a fifth of their lifetime is left', async () => {
    const g = fakeGateway({ missing: [1], expiresIn: 60 });
    const urls = urlsOf(g);
    await urls.get(1);
    vi.advanceTimersByTime(47_000); // 13 s left: more than 12 s
    expect(await urls.get(1)).toMatch(/sig=1$/);
    vi.advanceTimersByTime(1_001); // under 12 s left
    expect(await urls.get(1)).toMatch(/sig=2$/);
  });

  it('a URL storage refused is signed again; the others are not touched until then', async () => {
    const g = fakeGateway({ missing: [1, 2] });
    const urls = urlsOf(g);
    await urls.get(1);
    urls.invalidate(1);
    expect(await urls.get(1)).toMatch(/sig=2$/);
    expect(await urls.get(2)).toMatch(/sig=2$/); // the refresh replaced every kept URL
    expect(g.calls).toBe(2);
  });

  it('a part presign-missing no longer lists is in storage: no URL, so it is never sent twice', async () => {
    const g = fakeGateway({ missing: [1, 2] });
    const urls = urlsOf(g);
    await urls.get(1);
    g.missing = [2];
    urls.invalidate(1);
    expect(await urls.get(1)).toBeUndefined();
  });

  it('a failed presign call keeps the URLs already held', async () => {
    const g = fakeGateway({ missing: [1, 2] });
    const urls = urlsOf(g);
    await urls.get(1);
    g.fail = new NetworkError('No answer from the service: ECONNRESET', request, 'ECONNRESET');
    await expect(urls.refresh()).rejects.toBe(g.fail);
    expect(await urls.get(2)).toMatch(/sig=1$/);
    expect(g.calls).toBe(2);
  });

  it("a gateway 403 naming the API key is the queue's credentials, not the part's", async () => {
    const g = fakeGateway({ missing: [1] });
    g.fail = new HttpStatusError('Invalid API key', 403, request);
    const err = await urlsOf(g)
      .get(1)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CredentialsRefusedError);
  });
});

describe('presigned URLs that cannot carry a part', () => {
  it('a file:, ftp: or plain-http URL (with the gateway on https) is one refusal for a person, naming the file and no secret', async () => {
    for (const url of [
      'file:///etc/passwd?X-Amz-Signature=s3cr3t',
      'ftp://storage.example/u/1?X-Amz-Signature=s3cr3t',
      'http://storage.example/u/1?X-Amz-Signature=s3cr3t',
    ]) {
      const g = Object.assign(fakeGateway({ missing: [1] }), {
        addresses: { baseUrl: 'https://gateway.example', authUrl: 'https://auth.example' },
      });
      const answer = g.answer.bind(g);
      g.answer = (id: string, n: number) => ({ ...answer(id, n), parts: [{ partNumber: 1, url, expiresIn: 3600 }] });
      const err = await urlsOf(g)
        .get(1)
        .catch((e: unknown) => e as Error);
      expect(err).toBeInstanceOf(PresignAnswerError);
      expect((err as Error).message).toMatch(
        /^clip\.mp4: the capture service gave part 1 an address that cannot carry it: .*only https may carry a part\. Nothing of it was sent\./,
      );
      expect((err as Error).message).not.toContain('s3cr3t');
      expect(isPassing(err)).toBe(false);
    }
  });

  it('https always, and http when the gateway itself is reached over http (the local service)', () => {
    expect(partUrlProblem('https://s.example/u?sig=1', 'https:')).toBeNull();
    expect(partUrlProblem('http://127.0.0.1:9000/u?sig=1', 'http:')).toBeNull();
    expect(partUrlProblem('http://s.example/u?sig=1', 'https:')).toMatch(/plain http \(host s\.example\)/);
    expect(partUrlProblem('data:text/plain,x', 'http:')).toMatch(/"data:"/);
    expect(partUrlProblem('not a url', 'https:')).toBe('it is not a URL.');
  });
});

describe('a presign answer held to the file (presignAnswerProblem)', () => {
  const part = (partNumber: number, query = `partNumber=${partNumber}`) => ({
    partNumber,
    url: `https://storage.example/u?${query}&uploadId=x&X-Amz-Signature=s3cr3t`,
  });
  const judge = (parts: ReturnType<typeof part>[], extra: Partial<PresignResponse> = {}) =>
    presignAnswerProblem({ parts, ...extra }, FILE, 'https:');

  it.each<[string, ReturnType<typeof part>[], Partial<PresignResponse>, string | null]>([
    ['every part, in order', [1, 2, 3, 4].map((n) => part(n)), {}, null],
    ['a subset, out of order (the parts storage lacks)', [part(4), part(2)], {}, null],
    ['none (the file is whole)', [], {}, null],
    ['a URL without a partNumber query', [part(1, 'p=1')], {}, null],
    ['part 5 of 4', [part(1), part(5)], {}, 'the capture service listed part 5 for a 4-part file'],
    ['a negative part', [part(-1)], {}, 'the capture service listed part -1 for a 4-part file'],
    ['part 2 twice', [part(2), part(2)], {}, 'the capture service listed part 2 twice for a 4-part file'],
    [
      "part 3 with part 4's URL",
      [part(3, 'partNumber=4')],
      {},
      "the capture service gave part 3 the address of part 4 (its URL's partNumber is 4)",
    ],
    [
      'a partNumber query that is no number',
      [part(3, 'partNumber=%1B%5B2J')],
      {},
      'the capture service gave part 3 an address for another part (its URL\'s partNumber is "\\u001b[2J")',
    ],
    [
      'another layout',
      [part(1)],
      { totalParts: 5, partSize: 4 * 1024 * 1024 },
      `the capture service now describes it as 5 parts of ${4 * 1024 * 1024} bytes, not the registered 4 parts of ${5 * 1024 * 1024} bytes`,
    ],
  ])('%s', (_name, parts, extra, problem) => {
    expect(judge(parts, extra)).toBe(problem);
  });
});
