import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FeedFetcherOptions } from './feed-fetch.js';
import { FEED_LIMITS, FeedFetchError, FeedFetcher, FeedHttpError, FeedLengthError } from './feed-fetch.js';

// The fetcher tuf-js reads the feed with, against small servers that misbehave one way each.
const work = mkdtempSync(join(tmpdir(), 'feed-fetch-'));
const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  rmSync(work, { recursive: true, force: true });
});

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
async function serve(handler: Handler, host = '127.0.0.1', server: Server = createServer()): Promise<string> {
  server.on('request', handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, host, r));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

const limits = { silenceMs: 400, graceMs: 300, minBytesPerSecond: 1024 * 1024, connectMs: 2000 };
const fetcher = (feedUrl: string, o: Partial<FeedFetcherOptions> = {}) =>
  new FeedFetcher({ feedUrl, tmpDir: join(work, 'tmp'), limits, ...o });
/** What `p` rejects with. */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('it did not fail');
    },
    (e: unknown) => e as Error,
  );

describe('the update feed fetcher', () => {
  it('bounds every request by 60 s of silence and 16 KiB/s after 60 s by default', () => {
    expect(FEED_LIMITS).toEqual({
      silenceMs: 60_000,
      minBytesPerSecond: 16 * 1024,
      graceMs: 60_000,
      connectMs: 10_000,
    });
  });

  it('reads a file with the feed’s query (its token) added, and names the file without it when it fails', async () => {
    const seen: string[] = [];
    const feed = await serve((req, res) => {
      seen.push(req.url!);
      if (req.url!.startsWith('/feed/metadata/timestamp.json')) res.end('{"signed":{}}');
      else res.writeHead(404).end();
    });
    const f = fetcher(`${feed}/feed?token=s3cret`);
    expect((await f.downloadBytes(`${feed}/feed/metadata/timestamp.json`, 1000)).toString()).toBe('{"signed":{}}');
    const missing = await failure(f.downloadBytes(`${feed}/feed/metadata/2.root.json`, 1000));
    expect(missing).toBeInstanceOf(FeedHttpError);
    expect(missing).toMatchObject({ statusCode: 404, message: 'the feed answered 404 for metadata/2.root.json' });
    expect(seen).toEqual(['/feed/metadata/timestamp.json?token=s3cret', '/feed/metadata/2.root.json?token=s3cret']);
  });

  it('follows a redirect within the feed’s address, and refuses one to another host or port, or from https to plain http', async () => {
    const other = await serve((_req, res) => res.end('from elsewhere'));
    const feed = await serve((req, res) => {
      if (req.url === '/moved.json') res.writeHead(301, { location: '/here.json' }).end();
      else if (req.url === '/here.json') res.end('here');
      else res.writeHead(302, { location: `${other}/x.json` }).end();
    });
    const f = fetcher(feed);
    expect((await f.downloadBytes(`${feed}/moved.json`, 100)).toString()).toBe('here');
    const away = await failure(f.downloadBytes(`${feed}/metadata/timestamp.json`, 100));
    expect(away).toBeInstanceOf(FeedFetchError);
    expect(away.message).toBe(
      `the feed redirected metadata/timestamp.json to ${new URL(other).host}, which is not the feed's address: not followed`,
    );
    // Another host name for the same address is another host too.
    const byName = await failure(
      fetcher(feed).downloadBytes(`${feed.replace('127.0.0.1', 'localhost')}/here.json`, 100),
    );
    expect(byName.message).toMatch(/is not on the feed's own address, so it is not read/);

    // https redirected to plain http on the same host.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(work, 'key.pem'),
        '-out',
        join(work, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(join(work, 'cert.pem'), 'utf8');
    const tls = createHttpsServer({ key: readFileSync(join(work, 'key.pem')), cert });
    const secure = await serve(
      (req, res) => {
        if (req.url === '/ok.json') res.end('over tls');
        else res.writeHead(302, { location: `http://127.0.0.1:${(tls.address() as AddressInfo).port}/ok.json` }).end();
      },
      '127.0.0.1',
      tls,
    );
    const httpsFeed = secure.replace(/^http:/, 'https:');
    const s = fetcher(httpsFeed, { ca: cert });
    expect((await s.downloadBytes(`${httpsFeed}/ok.json`, 100)).toString()).toBe('over tls');
    const downgraded = await failure(s.downloadBytes(`${httpsFeed}/metadata/timestamp.json`, 100));
    expect(downgraded.message).toMatch(
      /^the feed redirected metadata\/timestamp\.json to plain http at 127\.0\.0\.1:\d+, which is not the feed's address: not followed$/,
    );
  });

  it('stops a body at its allowed length and leaves nothing of it on disk', async () => {
    let sent = 0;
    const feed = await serve((_req, res) => {
      const chunk = Buffer.alloc(64 * 1024, 7);
      const more = () => {
        while (sent < 256 * 1024 * 1024 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    const f = fetcher(feed);
    const tmp = join(work, 'tmp');
    const err = await failure(f.downloadFile(`${feed}/targets/abc.deb`, 1_000_000, async () => 'kept'));
    expect(err).toBeInstanceOf(FeedLengthError);
    expect(err.message).toBe('the feed sent more of abc.deb than the 1000000 bytes it may have: stopped there');
    expect(readdirSync(tmp)).toEqual([]);
    // What the server managed to write before the connection closed: socket buffers, not the body.
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  it('gives up on a feed that never answers, one that goes silent mid-body, and one that crawls', async () => {
    const feed = await serve((req, res) => {
      if (req.url === '/hang') return;
      if (req.url === '/silent') {
        res.writeHead(200, { 'content-length': 100 });
        res.write('x');
        return;
      }
      // A byte every 50 ms: never silent, far below the rate.
      res.writeHead(200, { 'content-length': 1000 });
      const t = setInterval(() => res.write('y'), 50);
      res.on('close', () => clearInterval(t));
    });
    // Silence is said as silence: the rate's deadline here is later than it.
    const quiet = fetcher(feed, { limits: { ...limits, graceMs: 5000 } });
    let started = Date.now();
    expect((await failure(quiet.downloadBytes(`${feed}/hang`, 100))).message).toBe(
      'the feed did not answer for hang within 0.4 s',
    );
    expect(Date.now() - started).toBeLessThan(3000);
    started = Date.now();
    expect((await failure(quiet.downloadBytes(`${feed}/silent`, 100))).message).toBe(
      'the feed sent nothing of silent for 0.4 s',
    );
    expect(Date.now() - started).toBeLessThan(3000);
    started = Date.now();
    const crawl = await failure(fetcher(feed).downloadBytes(`${feed}/crawl`, 1000));
    expect(crawl).toMatchObject({ kind: 'slow' });
    expect(crawl.message).toMatch(/^the feed sent crawl slower than 1024 KiB\/s: given up after 0\.3 s$/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('ends at once with the caller’s reason when its signal aborts', async () => {
    const feed = await serve(() => {});
    const ac = new AbortController();
    const f = fetcher(feed, { signal: ac.signal, limits: { ...limits, silenceMs: 60_000 } });
    const started = Date.now();
    setTimeout(() => ac.abort(new Error('the feed did not answer within 1 s')), 200);
    expect((await failure(f.downloadBytes(`${feed}/metadata/timestamp.json`, 100))).message).toBe(
      'the feed did not answer within 1 s',
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
