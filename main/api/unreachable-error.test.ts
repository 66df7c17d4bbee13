import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo, Server as TcpServer, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpStatusError, NetworkError } from './errors.js';
import { UnreachableError, isUnreachable } from './unreachable-error.js';
import { createJsonGot, isWebPage, sendJson } from './http.js';

// Which low-level failures mean "nothing the service understood was sent", and
// which may have reached it: a 5xx page from a proxy, or silence after the request went out.

let pages: Server;
let silent: TcpServer;
const sockets: Socket[] = [];
const url = (s: { address(): unknown }, path = '/x') => `http://127.0.0.1:${(s.address() as AddressInfo).port}${path}`;
const client = createJsonGot({ retry: { retries: 0, delayMs: () => 0 }, timeoutMs: 400 });
const call = (u: string) => sendJson(client, u, { method: 'POST', json: {} }, z.object({ ok: z.boolean() }));

beforeAll(async () => {
  pages = createServer((req, res) => {
    const status = Number(req.url!.slice(1)) || 200;
    res.writeHead(status, { 'content-type': 'text/html' }).end('<html><body>Sign in to the Wi-Fi</body></html>');
  });
  await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
  silent = createTcpServer((s) => void sockets.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => pages.close(r));
  await new Promise((r) => silent.close(r));
});

describe('UnreachableError: nothing the service understood was sent', () => {
  it.each([200, 403, 404])('a web page with %i where JSON was expected', async (status) => {
    const err = await call(url(pages, `/${status}`)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreachableError);
    expect((err as UnreachableError).plainCause).toMatch(
      new RegExp(`something else answered \\(HTTP ${status}\\) with a web page`),
    );
    expect(isUnreachable(err)).toBe(true);
  });

  it('a refused connection and https on a plain-http port', async () => {
    const refused = await call('http://127.0.0.1:1/x').catch((e: unknown) => e);
    expect((refused as UnreachableError).plainCause).toMatch(/connection refused/);
    const eproto = await call(url(pages).replace('http:', 'https:')).catch((e: unknown) => e);
    expect((eproto as UnreachableError).plainCause).toMatch(/does not speak https/);
  });
});

describe('what may have reached the service is not "unreachable"', () => {
  it('a 502 page from a proxy: the service may have acted', async () => {
    const err = await call(url(pages, '/502')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(isUnreachable(err)).toBe(false);
  });

  it('silence after a plain-http request went out: a timeout, not a connection failure', async () => {
    const err = await call(url(silent)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(isUnreachable(err)).toBe(false);
  });

  it('tells web pages from JSON and S3 XML', () => {
    expect(isWebPage('text/html; charset=utf-8', '')).toBe(true);
    expect(isWebPage(undefined, '  <!DOCTYPE html><html>')).toBe(true);
    expect(isWebPage('application/json', '{"message":"<b>"}')).toBe(false);
    expect(isWebPage('application/xml', '<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>')).toBe(false);
  });
});
