import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CancelledError, FileChangedError, NetworkError, PartIntegrityError } from '../../api/errors.js';
import { uploadPart } from './part-put.js';
import { LinkMonitor } from '../outages/link.js';
import { Bandwidth } from '../scheduling/bandwidth.js';

// A bare storage double per test: what it does with the request is the test's subject.
type Behaviour = (
  body: Buffer,
  headers: IncomingHttpHeaders,
) => { status: number; etag?: string; headers?: Record<string, string> } | 'never-read';
let behaviour: Behaviour;
let seen: { body: Buffer; headers: IncomingHttpHeaders }[] = [];
let server: Server;
let url: string;
const work = mkdtempSync(join(tmpdir(), 'part-put-'));
const file = join(work, 'VID_20261122_080000_00_001.insv');
const bytes = randomBytes(3 * 1024 * 1024);
writeFileSync(file, bytes);
const expected = { size: bytes.length, mtimeMs: statSync(file).mtimeMs };
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

beforeAll(async () => {
  server = createServer((req, res) => {
    const first = behaviour(Buffer.alloc(0), req.headers);
    if (first === 'never-read') return; // hold the request: the client's body backs up
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ body, headers: req.headers });
      const r = behaviour(body, req.headers) as { status: number; etag?: string; headers?: Record<string, string> };
      res.writeHead(r.status, { ...(r.etag ? { etag: r.etag } : {}), ...r.headers });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bucket/key?partNumber=2&X-Amz-Signature=secret`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(work, { recursive: true, force: true });
});

/**
 * A link on which parts were answered at 64 MiB/s, and whose slowest rate assumed is 64 MiB/s: a
 * part all taken at once waits for its answer by its own bytes at that rate (older answers never
 * shorten the wait, docs/engine.md "A silent link" rule 3), so about twice the stall timeout.
 */
function fastLink(): LinkMonitor {
  const link = new LinkMonitor(new Bandwidth(null), 30_000, () => {}, 64 * 1024 * 1024);
  link.answered(64 * 1024 * 1024, 0, 1000);
  return link;
}
/**
 * fastLink, but with 1 MiB/s as the slowest link accepted: a 3 MiB part's deadline is then 6 s past
 * twice the stall timeout, so a test of the stall rules sees them fire and not the deadline. At
 * 64 MiB/s the deadline was 94 ms past them, and on a loaded machine (the last byte taken that much
 * after the start) it came first: "EDEADLINE" where the stall was meant.
 */
function stallLink(): LinkMonitor {
  const link = new LinkMonitor(new Bandwidth(null), 30_000, () => {}, 1024 * 1024);
  link.answered(64 * 1024 * 1024, 0, 1000);
  return link;
}
const job = (partNumber = 2, offset = 1024 * 1024, size = 1024 * 1024) => ({
  path: file,
  expected,
  partNumber,
  offset,
  size,
  url,
});
const opts = (extra: Partial<Parameters<typeof uploadPart>[1]> = {}) => ({
  bandwidth: new Bandwidth(null),
  // A fast link: a fully sent part that gets no answer is given up on after twice the stall timeout.
  link: fastLink(),
  stallTimeoutMs: 30_000,
  onProgress: () => {},
  signal: new AbortController().signal,
  ...extra,
});

describe('uploadPart (§4.6)', () => {
  it('sends exactly the part bytes, with no authentication header, and returns the ETag as sent', async () => {
    seen = [];
    behaviour = (body) => ({ status: 200, etag: `"${md5(body)}"` });
    const sent: number[] = [];
    const result = await uploadPart(job(), opts({ onProgress: (n) => sent.push(n) }));
    const part = bytes.subarray(1024 * 1024, 2 * 1024 * 1024);
    expect(result).toEqual({ etag: `"${md5(part)}"`, md5Etag: `"${md5(part)}"`, md5Checked: true });
    expect(seen[0]!.body.equals(part)).toBe(true);
    expect(seen[0]!.headers.authorization).toBeUndefined();
    expect(seen[0]!.headers['x-api-key']).toBeUndefined();
    expect(seen[0]!.headers['content-length']).toBe(String(1024 * 1024));
    expect(sent.at(-1)).toBe(1024 * 1024);
  });

  it('fails the part when the ETag is missing, or is an MD5 other than the bytes sent and storage names no KMS or customer key', async () => {
    behaviour = () => ({ status: 200 });
    await expect(uploadPart(job(), opts())).rejects.toThrow(PartIntegrityError);
    behaviour = () => ({ status: 200, etag: `"${'0'.repeat(32)}"` });
    await expect(uploadPart(job(), opts())).rejects.toThrow(/arrived corrupted/);
  });

  // Under SSE-KMS or SSE-C storage's ETag is 32 hex digits that are not the MD5.
  it.each([
    [
      'SSE-KMS',
      {
        'x-amz-server-side-encryption': 'aws:kms',
        'x-amz-server-side-encryption-aws-kms-key-id': 'arn:aws:kms:us-east-1:1:key/k',
      },
    ],
    ['DSSE-KMS', { 'x-amz-server-side-encryption': 'aws:kms:dsse' }],
    ['SSE-C', { 'x-amz-server-side-encryption-customer-algorithm': 'AES256' }],
  ])(
    'accepts a 32-hex ETag that is not the MD5 when storage says %s, saying it was not checked',
    async (_, headers) => {
      behaviour = () => ({ status: 200, etag: `"${'7'.repeat(32)}"`, headers });
      expect(await uploadPart(job(), opts())).toEqual({
        etag: `"${'7'.repeat(32)}"`,
        md5Etag: `"${md5(bytes.subarray(1024 * 1024, 2 * 1024 * 1024))}"`,
        md5Checked: false,
      });
    },
  );

  it("says so when a web page answers 200 in storage's place (a captive portal), and sends the part again", async () => {
    behaviour = () => ({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' } });
    await expect(uploadPart(job(), opts())).rejects.toThrow(/A web page answered part 2 instead of storage/);
  });

  it('still checks the ETag under SSE-S3 (AES256 alone): there it is the MD5', async () => {
    behaviour = () => ({
      status: 200,
      etag: `"${'0'.repeat(32)}"`,
      headers: { 'x-amz-server-side-encryption': 'AES256' },
    });
    await expect(uploadPart(job(), opts())).rejects.toThrow(/arrived corrupted/);
    behaviour = (body) => ({
      status: 200,
      etag: `"${md5(body)}"`,
      headers: { 'x-amz-server-side-encryption': 'AES256' },
    });
    expect((await uploadPart(job(), opts())).md5Checked).toBe(true);
  });

  it('accepts an ETag that is not a plain MD5, saying it was not checked', async () => {
    behaviour = () => ({ status: 200, etag: '"3858f62230ac3c915f300c664312c11f-9"' });
    expect(await uploadPart(job(), opts())).toEqual({
      etag: '"3858f62230ac3c915f300c664312c11f-9"',
      md5Etag: `"${md5(bytes.subarray(1024 * 1024, 2 * 1024 * 1024))}"`,
      md5Checked: false,
    });
  });

  it('aborts a stalled part with a NetworkError, without leaving streams writing', async () => {
    behaviour = () => 'never-read';
    const err = await uploadPart(job(1, 0, bytes.length), opts({ stallTimeoutMs: 300, link: stallLink() })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).code).toBe('ESTALLED');
    expect((err as Error).message).not.toContain('secret');
    await new Promise((r) => setTimeout(r, 300)); // a late write into a destroyed stream would surface now
  });

  it('aborts a stalled part cleanly under a bandwidth limit too', async () => {
    behaviour = () => 'never-read';
    const err = await uploadPart(
      job(1, 0, bytes.length),
      opts({ stallTimeoutMs: 300, bandwidth: new Bandwidth(64 * 1024 * 1024), link: stallLink() }),
    ).catch((e: unknown) => e);
    expect((err as NetworkError).code).toBe('ESTALLED');
    await new Promise((r) => setTimeout(r, 300));
  });

  it('stops at once when cancelled', async () => {
    behaviour = () => 'never-read';
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(uploadPart(job(1, 0, bytes.length), opts({ signal: controller.signal }))).rejects.toThrow(
      CancelledError,
    );
  });

  it('refuses to send a part of a file that changed since it was queued', async () => {
    behaviour = (body) => ({ status: 200, etag: `"${md5(body)}"` });
    await expect(uploadPart({ ...job(), expected: { ...expected, size: expected.size + 1 } }, opts())).rejects.toThrow(
      FileChangedError,
    );
  });
});

describe('uploadPart when stopped after its last byte', () => {
  it('waits for the answer of a part whose bytes were all sent, so it is not sent twice', async () => {
    // A storage double that answers 400 ms after the body has arrived.
    const slow = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () =>
        setTimeout(() => {
          res.writeHead(200, { etag: `"${md5(Buffer.concat(chunks))}"` });
          res.end();
        }, 400),
      );
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/b/k?partNumber=1`;
    const controller = new AbortController();
    let result: { etag: string } | undefined;
    const sentAll = new Promise<void>(
      (resolve) =>
        void uploadPart(
          { ...job(1, 0, 64 * 1024), url: slowUrl },
          opts({ signal: controller.signal, onProgress: (n) => n >= 64 * 1024 && resolve() }),
        ).then((r) => (result = r)),
    );
    await sentAll;
    controller.abort();
    await vi.waitFor(() => expect(result?.etag).toBe(`"${md5(bytes.subarray(0, 64 * 1024))}"`), { timeout: 3000 });
    slow.closeAllConnections();
    await new Promise((r) => slow.close(r));
  });
});

describe('uploadPart with many parts at once', () => {
  it('parts sent together, half of them abandoned midway, each stored part arrives intact and hashed right (buffers are shared between parts)', async () => {
    const big = randomBytes(12 * 1024 * 1024);
    const bigFile = join(work, 'VID_20261122_090000_00_001.insv');
    writeFileSync(bigFile, big);
    const bigExpected = { size: big.length, mtimeMs: statSync(bigFile).mtimeMs };
    const received = new Map<number, Buffer>();
    // Odd parts are never read by this storage: they back up and are cancelled while even parts flow.
    const store = createServer((req, res) => {
      const n = Number(new URL(req.url!, 'http://x').searchParams.get('partNumber'));
      if (n % 2 === 1) return;
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.set(n, Buffer.concat(chunks));
        res.writeHead(200, { etag: `"${md5(Buffer.concat(chunks))}"` });
        res.end();
      });
    });
    await new Promise<void>((r) => store.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(store.address() as AddressInfo).port}/b/k?partNumber=`;
    const partSize = 1536 * 1024; // 1.5 MiB: two reads per part, the second into the other buffer
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 150);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        uploadPart(
          {
            path: bigFile,
            expected: bigExpected,
            partNumber: i + 1,
            offset: i * partSize,
            size: partSize,
            url: `${base}${i + 1}`,
          },
          opts({ signal: (i + 1) % 2 === 1 ? cancel.signal : new AbortController().signal }),
        ),
      ),
    );
    // A second round reuses the buffers the first one gave back, the abandoned parts' included.
    const again = await Promise.all(
      [2, 4, 6, 8].map((n) =>
        uploadPart(
          {
            path: bigFile,
            expected: bigExpected,
            partNumber: n,
            offset: (n - 1) * partSize,
            size: partSize,
            url: `${base}${n}`,
          },
          opts(),
        ),
      ),
    );
    store.closeAllConnections();
    await new Promise((r) => store.close(r));
    for (const [i, r] of results.entries()) {
      if ((i + 1) % 2 === 1) expect(r.status === 'rejected' && r.reason).toBeInstanceOf(CancelledError);
      else expect(r.status).toBe('fulfilled');
    }
    for (const [k, n] of [2, 4, 6, 8].entries()) {
      const slice = big.subarray((n - 1) * partSize, n * partSize);
      expect(received.get(n)!.equals(slice)).toBe(true);
      expect(again[k]).toEqual({ etag: `"${md5(slice)}"`, md5Etag: `"${md5(slice)}"`, md5Checked: true });
    }
  });
});
