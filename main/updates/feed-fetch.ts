// How the app reads its update feed (docs/decisions/0036-updates-tuf.md): tuf-js asks for each file
// with the length the signed metadata allow (or its own cap for files not yet listed), and this
// fetcher keeps every answer to the feed's own address and to time:
// - only the feed's scheme, host and port are asked; a redirect is followed only there (a
//   mirror elsewhere, or https turned into http, is refused, whatever TUF would say of the bytes);
// - a body past its allowed length is cut off there (endless data), never written past it;
// - no byte for `silenceMs` is given up, and so is a body slower than `minBytesPerSecond` on
//   average after `graceMs` (slow retrieval): each request's deadline is grace + length ÷ rate;
// - the caller's signal (the check's 60 s, docs/desktop-app.md "Updates") ends everything at once.
// Files are written to `tmpDir` (the updates folder), never to the system's temporary folder.
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Request as GotStream, Response as GotResponse } from 'got';
import { RequestError, got } from 'got';
import type { Fetcher } from 'tuf-js';
// tuf-js tells "this root version does not exist yet" from other failures by these classes
// (its index does not export them; the module is part of the same pinned version).
import { DownloadHTTPError, DownloadLengthMismatchError } from 'tuf-js/dist/error.js';

/** The time and rate bounds of every request to the feed. Times in ms, rates in bytes per second. */
export interface FeedLimits {
  /** No byte (nor the status line) for this long: the request is given up. */
  silenceMs: number;
  /** A body must average at least this once `graceMs` have passed. */
  minBytesPerSecond: number;
  /** Time allowed on top of length ÷ rate (the connection, the first bytes). */
  graceMs: number;
  /** Making the connection and its TLS handshake. */
  connectMs: number;
}

/** The bounds the app uses: 60 s of silence, 16 KiB/s on average after 60 s, 10 s to connect. */
export const FEED_LIMITS: FeedLimits = {
  silenceMs: 60_000,
  minBytesPerSecond: 16 * 1024,
  graceMs: 60_000,
  connectMs: 10_000,
};

/** A request to the feed that failed for a reason a person can read (`message`, no address's query in it). */
export class FeedFetchError extends Error {
  override readonly name = 'FeedFetchError';
  constructor(
    message: string,
    /** What went wrong, for the caller's choice of words and the tests. */
    readonly kind: 'silence' | 'slow' | 'redirect' | 'elsewhere' | 'network' | 'aborted',
  ) {
    super(message);
  }
}

/** An answer other than 200 (tuf-js's class, so a 404 ends its walk through the root versions). */
export class FeedHttpError extends DownloadHTTPError {
  override readonly name = 'FeedHttpError';
}

/** A body past its allowed length (tuf-js's class). */
export class FeedLengthError extends DownloadLengthMismatchError {
  override readonly name = 'FeedLengthError';
}

/** The file a URL of the feed names, for messages: `metadata/timestamp.json`, the installer's name. */
function fileOf(url: URL): string {
  const parts = url.pathname.split('/');
  const name = decodeURIComponent(parts.at(-1) ?? '');
  // Targets are stored under their hash (consistent snapshots); the name is what people know.
  const plain = name.replace(/^[0-9a-f]{64}\./, '');
  return parts.at(-2) === 'metadata' ? `metadata/${plain}` : plain;
}

/** Options of {@link FeedFetcher}. */
export interface FeedFetcherOptions {
  /** The feed's address as set (its query, a token, is sent with every request and never shown). */
  feedUrl: string;
  /** Where files are written while they arrive (made when missing). */
  tmpDir: string;
  /** Ends every request at once (the check's deadline, the app quitting). */
  signal?: AbortSignal;
  limits?: Partial<FeedLimits>;
  /** Told of every request as it ends: the file and the body bytes read. */
  onRequest?: (file: string, bytes: number) => void;
  /** Certificate authorities (PEM) to trust instead of the system's: a feed behind a site's own CA. */
  ca?: string;
}

/**
 * tuf-js's Fetcher (its `downloadBytes` and `downloadFile`) over got, held to the feed (see the
 * file's comment). `problem` keeps the last failure, since tuf-js passes some on as text only.
 */
export class FeedFetcher implements Fetcher {
  /** The last request's failure, as thrown. */
  problem: Error | undefined;
  /** Ends every request at once (the check's or the download's deadline); set before each. */
  signal: AbortSignal | undefined;
  private readonly feed: URL;
  private readonly limits: FeedLimits;

  constructor(private readonly opts: FeedFetcherOptions) {
    this.feed = new URL(opts.feedUrl);
    this.signal = opts.signal;
    this.limits = { ...FEED_LIMITS, ...opts.limits };
  }

  /** Reads `url` whole into memory, at most `maxLength` bytes (metadata). Throws what {@link downloadFile} throws. */
  async downloadBytes(url: string, maxLength: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    await this.read(url, maxLength, async (chunk) => void chunks.push(chunk));
    return Buffer.concat(chunks);
  }

  /**
   * Writes `url` to a file in `tmpDir`, at most `maxLength` bytes, hands its path to `handler`
   * (tuf-js checks its length and hashes there and copies it where it belongs), then removes it.
   * Throws FeedHttpError (not 200), FeedLengthError (past `maxLength`), FeedFetchError (silence,
   * too slow, a redirect elsewhere, the network, the signal), or what `handler` throws.
   */
  async downloadFile<T>(url: string, maxLength: number, handler: (file: string) => Promise<T>): Promise<T> {
    mkdirSync(this.opts.tmpDir, { recursive: true });
    const file = join(this.opts.tmpDir, `.${randomBytes(6).toString('hex')}.partial`);
    let out: WriteStream | undefined;
    try {
      out = createWriteStream(file, { mode: 0o600 });
      const w = out;
      await this.read(
        url,
        maxLength,
        (chunk) => new Promise<void>((resolve, reject) => w.write(chunk, (err) => (err ? reject(err) : resolve()))),
      );
      await new Promise<void>((resolve, reject) => w.end((err?: Error | null) => (err ? reject(err) : resolve())));
      return await handler(file);
    } finally {
      out?.destroy();
      rmSync(file, { force: true });
    }
  }

  /** The URL as asked for, with the feed's query added; throws when it is not on the feed's origin. */
  private address(url: string): URL {
    const u = new URL(url);
    if (u.origin !== this.feed.origin)
      throw new FeedFetchError(`${fileOf(u)} is not on the feed's own address, so it is not read`, 'elsewhere');
    for (const [k, v] of this.feed.searchParams) u.searchParams.set(k, v);
    return u;
  }

  private async read(url: string, maxLength: number, sink: (chunk: Buffer) => Promise<void>): Promise<void> {
    this.problem = undefined;
    let bytes = 0;
    let where = new URL(url);
    try {
      let answer = await this.open(this.address(url), maxLength);
      // Redirects within the feed's own address are followed (a few); any other is refused.
      for (let hops = 0; answer.response.statusCode >= 300 && answer.response.statusCode < 400; hops++) {
        answer.stream.destroy();
        answer.guard.done();
        const location = answer.response.headers.location;
        const next = location ? new URL(location, where) : undefined;
        if (!next || next.origin !== this.feed.origin || hops >= 3)
          throw new FeedFetchError(
            next && next.origin !== this.feed.origin
              ? `the feed redirected ${fileOf(where)} to ${next.protocol === 'http:' && this.feed.protocol === 'https:' ? 'plain http at ' : ''}${next.host}, which is not the feed's address: not followed`
              : `the feed redirected ${fileOf(where)} too often`,
            'redirect',
          );
        where = next;
        answer = await this.open(this.address(next.href), maxLength);
      }
      const { stream, response, guard } = answer;
      if (response.statusCode !== 200) {
        stream.destroy();
        throw new FeedHttpError(`the feed answered ${response.statusCode} for ${fileOf(where)}`, response.statusCode);
      }
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          guard.alive();
          bytes += chunk.length;
          if (bytes > maxLength)
            throw new FeedLengthError(
              `the feed sent more of ${fileOf(where)} than the ${maxLength} bytes it may have: stopped there`,
            );
          await sink(chunk);
        }
      } catch (err) {
        // got's own errors (a reset, the abort of a deadline) are said as the deadline or the network.
        throw guard.failure ?? (err instanceof RequestError ? this.networkError(where, err) : err);
      } finally {
        stream.destroy();
        guard.done();
      }
    } catch (err) {
      this.problem = err as Error;
      throw err;
    } finally {
      this.opts.onRequest?.(fileOf(where), bytes);
    }
  }

  /** Sends one GET and waits for its status line under the same deadlines as its body. */
  private async open(
    url: URL,
    maxLength: number,
  ): Promise<{ stream: GotStream; response: GotResponse; guard: ReturnType<FeedFetcher['guard']> }> {
    const guard = this.guard(url, maxLength);
    const stream = got.stream(url, {
      followRedirect: false,
      throwHttpErrors: false,
      decompress: false,
      retry: { limit: 0 },
      timeout: { connect: this.limits.connectMs, secureConnect: this.limits.connectMs },
      signal: guard.signal,
      headers: { 'user-agent': 'capture-uploader-updates' },
      ...(this.opts.ca ? { https: { certificateAuthority: this.opts.ca } } : {}),
    });
    try {
      const response = await new Promise<GotResponse>((resolve, reject) => {
        stream.once('response', resolve);
        stream.once('error', reject);
      });
      guard.alive();
      return { stream, response, guard };
    } catch (err) {
      stream.destroy();
      guard.done();
      throw guard.failure ?? this.networkError(url, err);
    }
  }

  private networkError(url: URL, err: unknown): Error {
    if (this.signal?.aborted)
      return this.signal.reason instanceof Error
        ? this.signal.reason
        : new FeedFetchError('the check was stopped', 'aborted');
    const code = (err as { code?: string }).code;
    return new FeedFetchError(
      `${fileOf(url)} could not be read from ${url.host}: ${code ?? (err instanceof Error ? err.message.split('\n')[0] : String(err))}`,
      'network',
    );
  }

  /** The silence and rate deadlines of one request: `signal` ends it, `failure` says why. */
  private guard(url: URL, maxLength: number) {
    const ac = new AbortController();
    const outer = this.signal;
    const l = this.limits;
    let answered = false;
    const g = {
      failure: undefined as Error | undefined,
      signal: outer ? AbortSignal.any([outer, ac.signal]) : ac.signal,
      alive: () => {
        answered = true;
        clearTimeout(silence);
        silence = setTimeout(
          fail,
          l.silenceMs,
          new FeedFetchError(`the feed sent nothing of ${fileOf(url)} for ${seconds(l.silenceMs)}`, 'silence'),
        );
      },
      done: () => {
        clearTimeout(silence);
        clearTimeout(slow);
        outer?.removeEventListener('abort', onAbort);
      },
    };
    const fail = (err: Error) => {
      g.failure ??= err;
      ac.abort(err);
    };
    const onAbort = () =>
      fail(outer!.reason instanceof Error ? outer!.reason : new FeedFetchError('the check was stopped', 'aborted'));
    outer?.addEventListener('abort', onAbort, { once: true });
    if (outer?.aborted) onAbort();
    let silence = setTimeout(
      fail,
      l.silenceMs,
      new FeedFetchError(`the feed did not answer for ${fileOf(url)} within ${seconds(l.silenceMs)}`, 'silence'),
    );
    const allowed = l.graceMs + (maxLength / l.minBytesPerSecond) * 1000;
    const slow = setTimeout(
      () =>
        fail(
          answered
            ? new FeedFetchError(
                `the feed sent ${fileOf(url)} slower than ${Math.round(l.minBytesPerSecond / 1024)} KiB/s: given up after ${seconds(allowed)}`,
                'slow',
              )
            : new FeedFetchError(`the feed did not answer for ${fileOf(url)} within ${seconds(allowed)}`, 'silence'),
        ),
      allowed,
    );
    return g;
  }
}

/** A duration for a message: `60 s`, `1.5 s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`;
}
