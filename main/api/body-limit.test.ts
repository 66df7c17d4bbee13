import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LinkMonitor } from '../engine/outages/link.js';
import { uploadPart } from '../engine/parts/part-put.js';
import { Bandwidth } from '../engine/scheduling/bandwidth.js';
import { HttpStatusError } from './errors.js';
import { MAX_ERROR_BODY, createJsonGot, sendJson } from './http.js';

// A 300 MiB error reply took the process to 1 GB. An error body is read up to
// 64 KiB, then the connection is closed; the error stays plain. The server below answers an
// error with a body of HUGE bytes, written as fast as the socket takes them, and records how much
// it wrote before the client closed the socket.
const HUGE = 300 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');
let server: Server;
let base: string;
let written: Promise<{ bytes: number; closedEarly: boolean }>;

function answerHuge(res: ServerResponse, status: number, type: string): void {
  let bytes = 0;
  written = new Promise((resolve) => {
    res.on('close', () => resolve({ bytes, closedEarly: bytes < HUGE }));
    res.writeHead(status, { 'content-type': type, 'content-length': String(HUGE) });
    const pump = () => {
      while (bytes < HUGE && !res.destroyed) {
        bytes += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', pump);
      }
      if (bytes >= HUGE) res.end();
    };
    pump();
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      answerHuge(res, req.method === 'PUT' ? 403 : 502, req.method === 'PUT' ? 'application/xml' : 'application/json'),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
const work = mkdtempSync(join(tmpdir(), 'body-limit-'));
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(work, { recursive: true, force: true });
});

describe('error bodies are read at most 64 KiB', () => {
  it('a JSON call answered 502 with a 300 MiB body: the client stops reading and says so plainly', async () => {
    const client = createJsonGot({ retry: { retries: 0, delayMs: () => 0 } });
    const heapBefore = process.memoryUsage().heapUsed;
    const err = (await sendJson(client, `${base}/v1/captures`, { method: 'GET' }, z.object({})).catch(
      (e: unknown) => e,
    )) as HttpStatusError;
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err.status).toBe(502);
    expect(err.message).toBe(
      `The service answered 502 with an error body over ${MAX_ERROR_BODY / 1024} KiB (not read)`,
    );
    const { bytes, closedEarly } = await written;
    expect(closedEarly).toBe(true);
    // What the server managed to write: the client's 64 KiB plus what the sockets' buffers held.
    expect(bytes).toBeLessThan(32 * 1024 * 1024);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it('a part PUT answered 403 with a 300 MiB body: the answer is settled after 64 KiB and the socket closed', async () => {
    const file = join(work, 'VID_20261122_080000_00_001.insv');
    writeFileSync(file, randomBytes(256 * 1024));
    const err = (await uploadPart(
      {
        path: file,
        expected: { size: 256 * 1024, mtimeMs: statSync(file).mtimeMs },
        partNumber: 1,
        offset: 0,
        size: 256 * 1024,
        url: `${base}/bucket/key?partNumber=1`,
      },
      {
        bandwidth: new Bandwidth(null),
        link: new LinkMonitor(new Bandwidth(null), 30_000),
        stallTimeoutMs: 30_000,
        onProgress: () => {},
        signal: new AbortController().signal,
      },
    ).catch((e: unknown) => e)) as HttpStatusError;
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err.status).toBe(403);
    expect(err.message).not.toMatch(/x{1000}/); // the body is not the message
    const { bytes, closedEarly } = await written;
    expect(closedEarly).toBe(true);
    expect(bytes).toBeLessThan(32 * 1024 * 1024);
  });
});
