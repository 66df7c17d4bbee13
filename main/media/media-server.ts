import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname } from 'node:path';

// Why a server at all: the thumbnail's frame is decoded by Chromium's own decoder, in the
// sandboxed renderer's decoding worker (or a `<video>` element), which cannot open local files.
// A `file://` URL would need the renderer to be allowed every file on the disk (and the tests
// serve it over http, where `file://` is refused anyway); a custom protocol would exist only in
// Electron, not in the tests. A loopback http server works the same in both, and both readers
// use Range requests, so a 4 GB recording is never read whole: the worker reads the frame's
// samples alone (decode-plan.ts).
//
// What keeps it to its purpose:
// - bound to 127.0.0.1 only, on a port the system picks;
// - a random 256-bit token in every URL path, made per session and never logged: another program or
//   web page on this computer cannot guess a URL (and a DNS-rebinding page fails the Host check too);
// - it serves only files handed to `urlFor` (the recordings the registration table lists, and the
//   camera's proxies beside them), each by an opaque number, never by path; anything else is 404
//   whatever the token;
// - GET and HEAD only; files are opened read-only (`fs.createReadStream`, flag 'r'): a recording is
//   never written to.

/** Content types by extension: an Insta360 .insv is an MP4 (ISO BMFF) container. */
const TYPES: Record<string, string> = { '.insv': 'video/mp4', '.mp4': 'video/mp4', '.lrv': 'video/mp4' };

/** A byte range to send, both ends inclusive (bytes), as RFC 9110 §14.1.2 defines them. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The one range a `Range` header asks of a file of `size` bytes (RFC 9110 §14.2): `bytes=a-b`,
 * `bytes=a-` or the suffix `bytes=-n`, the end clamped to the file. Answers undefined when the
 * header is absent, not about bytes, or asks several ranges (the whole file is then sent, which
 * RFC 9110 allows), and 'unsatisfiable' when the range lies past the end of the file.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size) return 'unsatisfiable';
  if (end < start) return undefined;
  return { start, end };
}

/**
 * A read-only range-request file server on 127.0.0.1 for the recordings the window may show
 * (the thumbnails' first frames). `start()` before `urlFor`; `close()` when done.
 */
export class MediaServer {
  private server?: Server;
  private port = 0;
  private starting?: Promise<void>;
  private readonly token = randomBytes(32).toString('base64url');
  private readonly byId = new Map<string, string>();
  private readonly byPath = new Map<string, string>();

  /** Starts listening on a free port of 127.0.0.1 (once; later calls wait for the first). Rejects with the listen error. */
  start(): Promise<void> {
    this.starting ??= new Promise<void>((resolve, reject) => {
      const server = createServer((req, res) => void this.answer(req, res));
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        this.server = server;
        this.port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
    return this.starting;
  }

  /**
   * The URL the window reads `path` from (an absolute path of a recording), allowing it from now on.
   * Holds the session's token: never log it. Throws Error when the server is not started.
   */
  urlFor(path: string): string {
    if (!this.server) throw new Error('The media server is not started.');
    let id = this.byPath.get(path);
    if (!id) {
      id = String(this.byPath.size + 1);
      this.byPath.set(path, id);
      this.byId.set(id, path);
    }
    return `http://127.0.0.1:${this.port}/${this.token}/${id}`;
  }

  /** Stops listening and ends open connections. */
  async close(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Nothing here may carry the URL (it holds the token) into a log or an error page.
    const fail = (status: number, extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...extra });
      res.end(`${status}\n`);
    };
    if (req.headers.host !== `127.0.0.1:${this.port}`) return fail(421);
    const [, token = '', id = '', ...rest] = (req.url ?? '').split('?')[0]!.split('/');
    const path = this.tokenMatches(token) && rest.length === 0 ? this.byId.get(id) : undefined;
    if (!path) return fail(404);
    if (req.method !== 'GET' && req.method !== 'HEAD') return fail(405, { Allow: 'GET, HEAD' });
    let size: number;
    try {
      const s = await stat(path);
      if (!s.isFile()) return fail(404);
      size = s.size;
    } catch {
      return fail(404);
    }
    const range = parseRange(req.headers.range, size);
    if (range === 'unsatisfiable') return fail(416, { 'Content-Range': `bytes */${size}` });
    const { start, end } = range ?? { start: 0, end: size - 1 };
    const headers: Record<string, string | number> = {
      'Content-Type': TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': Math.max(0, end - start + 1),
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      // The window draws the frame into a canvas and reads its pixels back, which Chromium allows
      // only for a CORS-approved video. The token is what guards the file; no cookies are involved.
      'Access-Control-Allow-Origin': '*',
    };
    if (range) headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    res.writeHead(range ? 206 : 200, headers);
    if (req.method === 'HEAD' || size === 0) return void res.end();
    const stream = createReadStream(path, { flags: 'r', start, end });
    stream.on('error', () => res.destroy());
    res.on('close', () => stream.destroy());
    stream.pipe(res);
  }

  private tokenMatches(given: string): boolean {
    const a = Buffer.from(given);
    const b = Buffer.from(this.token);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
