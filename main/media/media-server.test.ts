import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MediaServer, parseRange } from './media-server.js';

/** One raw request (node:http, so the Host header and the method are what the test says). */
function send(
  url: string,
  opts: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('MediaServer (the thumbnails’ first frames)', () => {
  let dir: string;
  let file: string;
  let bytes: Buffer;
  let server: MediaServer;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'media-server-'));
    file = join(dir, 'VID_20261124_080000_00_001.insv');
    bytes = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7) % 251));
    writeFileSync(file, bytes);
    // Read-only on disk, as a card's files may be: for a user other than root, a server that
    // opened it for writing would fail to serve it (root may write anyway: the bytes and the
    // modification time are checked as well).
    chmodSync(file, 0o444);
    server = new MediaServer();
    await server.start();
  });
  afterEach(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a file it was given, whole, as video/mp4 with its exact bytes', async () => {
    const r = await send(server.urlFor(file));
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('video/mp4');
    expect(r.headers['accept-ranges']).toBe('bytes');
    expect(sha(r.body)).toBe(sha(bytes));
  });

  it('answers a Range request with 206, Content-Range and exactly those bytes', async () => {
    const url = server.urlFor(file);
    const r = await send(url, { headers: { Range: 'bytes=1000-1999' } });
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(r.headers['content-length']).toBe('1000');
    expect(r.body.equals(bytes.subarray(1000, 2000))).toBe(true);

    const tail = await send(url, { headers: { Range: 'bytes=-500' } });
    expect(tail.status).toBe(206);
    expect(tail.body.equals(bytes.subarray(bytes.length - 500))).toBe(true);

    const open = await send(url, { headers: { Range: 'bytes=99990-' } });
    expect(open.body.equals(bytes.subarray(99_990))).toBe(true);

    const past = await send(url, { headers: { Range: `bytes=${bytes.length}-` } });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${bytes.length}`);
  });

  it('answers 404 for a file it was not given, whatever the id', async () => {
    const url = server.urlFor(file);
    const other = url.replace(/\/1$/, '/2');
    expect((await send(other)).status).toBe(404);
    expect((await send(url.replace(/\/1$/, `/${encodeURIComponent(file)}`))).status).toBe(404);
  });

  it('needs the session token: none, a wrong one, or another server’s answers 404 and no bytes', async () => {
    const url = new URL(server.urlFor(file));
    const [, token, id] = url.pathname.split('/');
    expect(token!.length).toBeGreaterThanOrEqual(40);
    expect((await send(`${url.origin}/${id}`)).status).toBe(404);
    const wrong = await send(`${url.origin}/${token!.slice(0, -1)}x/${id}`);
    expect(wrong.status).toBe(404);
    expect(wrong.body.length).toBeLessThan(10);
    const other = new MediaServer();
    await other.start();
    try {
      expect(new URL(other.urlFor(file)).pathname.split('/')[1]).not.toBe(token);
    } finally {
      await other.close();
    }
  });

  it('is read-only: PUT, POST and DELETE are refused with 405 and the file is unchanged', async () => {
    const before = statSync(file).mtimeMs;
    const url = server.urlFor(file);
    expect((await send(url)).status).toBe(200);
    for (const method of ['PUT', 'POST', 'DELETE']) {
      const r = await send(url, { method });
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe('GET, HEAD');
    }
    expect(sha(readFileSync(file))).toBe(sha(bytes));
    expect(statSync(file).mtimeMs).toBe(before);
    const head = await send(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(bytes.length));
  });

  it('refuses a request named for another host (DNS rebinding)', async () => {
    const r = await send(server.urlFor(file), { headers: { Host: 'attacker.example:80' } });
    expect(r.status).toBe(421);
  });
});

describe('parseRange (RFC 9110 §14.2)', () => {
  it('reads one range, clamps its end, and leaves several or odd ones to the whole file', () => {
    expect(parseRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=900-5000', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange('bytes=-2000', 1000)).toEqual({ start: 0, end: 999 });
    expect(parseRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-1,5-9', 1000)).toBeUndefined();
    expect(parseRange('items=0-1', 1000)).toBeUndefined();
    expect(parseRange(undefined, 1000)).toBeUndefined();
  });
});
