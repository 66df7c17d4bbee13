// One part's bytes on the wire: read from the file into shared slots, hashed once, paced by the
// bandwidth limit and written with node:http(s) (putFromFile); the request's reset when abandoned.
import { close, open, read } from 'node:fs';
import type { ClientRequest, IncomingHttpHeaders } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { PartMd5 } from '../../hash/local-md5.js';
import { giveSlot, isSlot, takeSlot } from '../../hash/local-md5.js';
import { SLOT_BYTES } from '../../hash/kernel.js';
import type { Bandwidth, Pacing } from '../scheduling/bandwidth.js';

/**
 * What storage answered a part PUT: the status, the ETag header exactly as sent (if any), the start
 * of an error answer's body (for S3's code and message), and every header (the encryption headers
 * decide whether the ETag is the part's MD5; Retry-After how long a SlowDown lasts).
 */
export interface WireAnswer {
  status: number;
  etag: string | undefined;
  text: string;
  headers: IncomingHttpHeaders;
}

/** How the bytes of one part go out. */
export interface WireOptions {
  bandwidth: Bandwidth;
  /** Set while a slice is held back by the bandwidth limit, for the stall watchdog. */
  pacing: Pacing;
  /**
   * Fed every byte of the part, in order, once: the part's MD5 comes out of the read itself. Its
   * chunks may be hashed later, with other parts' (main/hash/local-md5.ts): a buffer is reused only after
   * `settle()`. Absent when the part's MD5 is already known (computed while the card was copied,
   *): the part's bytes are then not hashed at all, and read into buffers of the heap,
   * leaving the kernel's slots to the parts that hash.
   */
  md5?: PartMd5;
  /** Called with the part's bytes handed to the socket so far (bytes), after each write completes. */
  onSent(sent: number): void;
  /**
   * Called with true when a write is handed to the socket and false when it completes. A write
   * that does not complete means the system's send buffer is full: the link is still draining
   * what it holds (up to several MiB), which at a slow link takes longer than the stall timeout.
   */
  onWriting?(writing: boolean): void;
  /** Aborting destroys the request and stops reading; the promise rejects with the signal's reason. */
  signal: AbortSignal;
}

/**
 * Opening or reading the part's file failed: `code` is the file system's (ENOENT, EACCES, EIO…),
 * or `EOF` when the file ended before the part did (it shrank since it was queued). Kept apart
 * from the socket's errors, which carry codes of their own (a reset is `read ECONNRESET`).
 */
export class PartFileError extends Error {
  override readonly name = 'PartFileError';
  constructor(readonly code: string) {
    super(`the part's file could not be read: ${code}`);
  }
}
const fileError = (err: NodeJS.ErrnoException) => new PartFileError(err.code ?? 'EIO');

// The file is read in 1 MiB chunks (a quarter of the read calls of 256 KiB): while one is
// written to the socket, the next is read. Each chunk is read into a slot of the MD5 kernel's
// memory (main/hash/local-md5.ts), hashed where it lies, later and four parts at once, so a slot goes back
// only once its chunk is both written and hashed. Slots are shared by all parts (10 MiB, never
// copied, never left for the garbage collector: buffers allocated per part left up to 20 MiB
// waiting for it); when none is free, the chunks waiting are hashed, which frees them.
const READ_CHUNK = SLOT_BYTES;
// Beyond the slots (every one lent: many parts at once), and for parts not hashed at all, buffers
// of the heap; a hashed part that starts in one is hashed by OpenSSL, a later chunk in one is
// copied into the kernel's memory and hashed at once (main/hash/local-md5.ts). A few are kept.
const POOL_LIMIT = 8;
const pool: Buffer[] = [];
// A part that is not hashed (its MD5 known from the offload) never takes a slot: it would only
// push a part that hashes onto OpenSSL's slower MD5, or make the kernel hash early to free one.
const takeBuffer = (hashed: boolean) =>
  (hashed ? takeSlot() : undefined) ?? pool.pop() ?? Buffer.allocUnsafeSlow(READ_CHUNK);
const giveBuffer = (b: Buffer) => {
  if (isSlot(b)) giveSlot(b);
  else if (pool.length < POOL_LIMIT) pool.push(b);
};
/**
 * A READ_CHUNK buffer for one chunk: a slot when the part is `hashed` and one is free, else one of
 * the heap. It goes back once both its write and its hash are done (or will never be, or there is
 * no hash): `release` is called twice.
 */
function lent(hashed: boolean): { buffer: Buffer; release(): void } {
  const buffer = takeBuffer(hashed);
  let holds = 2;
  return { buffer, release: () => void (--holds === 0 && giveBuffer(buffer)) };
}
// Each write to the socket is at most 256 KiB, because a write's completion is the only sign of
// progress the stall watchdog has (docs/engine.md, "A silent link"): at 16 KiB/s, the slowest
// link the engine is built for, 256 KiB moves in 16 s, well inside the 30 s stall timeout; a
// 1 MiB write would look like a stall.
const WRITE_SLICE = 256 * 1024;
// An error answer's body is S3's small XML document; more than this is not read.
const MAX_ERROR_TEXT = 64 * 1024;

function readAt(fd: number, buffer: Buffer, length: number, position: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    read(fd, buffer, 0, length, position, (err, n) => {
      if (err) return reject(fileError(err));
      if (n < length) return reject(new PartFileError('EOF'));
      resolve(buffer.subarray(0, n));
    }),
  );
}

/**
 * PUTs bytes `[offset, offset + size)` of the file at `path` to `url` (capture-upload-interface.md
 * §4.6: no header but the length and a user agent; the URL is the authorization), reading the
 * file only now, feeding each chunk to `opts.md5` as it is read and pacing each write under the
 * bandwidth limit. Uses node:http(s) directly rather than got, because only a write's own
 * completion says when a buffer may be reused.
 *
 * Resolves with storage's answer, whatever its status, once it has fully arrived (an early
 * refusal ends the sending). Rejects with PartFileError for the file, with the request's error
 * (its `code`: ECONNRESET, ECONNREFUSED…) for the network, or with the signal's reason when
 * aborted. Never mentions the URL.
 */
export async function putFromFile(
  url: string,
  path: string,
  offset: number,
  size: number,
  opts: WireOptions,
): Promise<WireAnswer> {
  opts.signal.throwIfAborted();
  const fd = await new Promise<number>((resolve, reject) =>
    open(path, 'r', (err, fd) => (err ? reject(fileError(err)) : resolve(fd))),
  );
  // An abort during the open has no listener yet to hear it: without this check the whole part went out.
  if (opts.signal.aborted) {
    close(fd, () => {});
    throw opts.signal.reason;
  }
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  const req = request(url, {
    method: 'PUT',
    headers: { 'content-length': String(size), 'user-agent': 'capture-uploader' },
  });
  const wire: Wire = { req, closed: false, stopWrite: undefined, ended: false };
  let settled = false;
  const answer = new Promise<WireAnswer>((resolve, reject) => {
    // Kept for the request's whole life (not once): a second error after the first must not go unheard.
    req.on('error', reject);
    req.once('response', (res) => {
      const ok = res.statusCode! >= 200 && res.statusCode! < 300;
      let text = '';
      if (ok) res.resume();
      else {
        // More than MAX_ERROR_TEXT of an error body is not read: the answer is settled with what
        // came, and the connection closed, so a huge error page neither fills memory nor keeps
        // the link busy.
        res.on('data', (d: Buffer) => {
          text += d.toString('utf8');
          if (text.length < MAX_ERROR_TEXT) return;
          resolve({
            status: res.statusCode!,
            etag: res.headers.etag,
            text: text.slice(0, MAX_ERROR_TEXT),
            headers: res.headers,
          });
          req.destroy();
        });
      }
      res.on('error', reject);
      res.once('end', () => resolve({ status: res.statusCode!, etag: res.headers.etag, text, headers: res.headers }));
    });
  }).finally(() => (settled = true));
  answer.catch(() => {}); // observed below; an early rejection must not count as unhandled
  req.once('close', () => {
    wire.closed = true;
    wire.stopWrite?.(new Error('request closed'));
  });
  const onAbort = () => reset(req, opts.signal.reason as Error);
  opts.signal.addEventListener('abort', onAbort, { once: true });
  const sending = sendBody(wire, fd, offset, size, opts);
  // The file descriptor is closed only once no read is in flight on it.
  void sending.catch(() => {}).finally(() => close(fd, () => {}));
  try {
    // A file error is the file's; any other end of the sending (the request closed, aborted or
    // answered early) is explained by the request's own outcome.
    return await Promise.race([
      answer,
      sending.then(
        () => answer,
        (err: unknown) => (err instanceof PartFileError ? Promise.reject(err) : answer),
      ),
    ]);
  } finally {
    opts.signal.removeEventListener('abort', onAbort);
    // Left before a complete exchange (a file error, or a refusal before the last byte): nothing more goes out.
    if (!(settled && wire.ended)) reset(req);
  }
}

/**
 * Ends a request with a TCP reset, not a close. A plain close leaves the bytes already in the
 * system's send buffer (up to several MiB) going out after the request was abandoned: at
 * 128 KiB/s a paused file's bytes kept reaching storage for half a minute, and a part abandoned
 * on Ctrl-C or pause was completed by storage from those bytes while the next drain, not yet
 * seeing it in presign-missing, sent it again. A reset discards them, and
 * storage drops the incomplete body.
 *
 * Not once the socket has ended its own side (`writableEnded`: storage closed the connection after
 * answering, and Node ends ours in reply): libuv refuses a reset while that shutdown is pending
 * (EINVAL), and Node then marks the handle closing without closing it, so the process, its work
 * done, never exits and spins in its clean-up (docs/engine.md, "A drain that ends"). Such a
 * socket is plainly destroyed: storage has answered already, so what its buffers still hold
 * cannot make it store the part.
 *
 * @public Exported for main/engine/parts/part-reset.test.ts, which calls it in a child process of its
 * own (an import in a script's text, which knip cannot follow).
 */
export function reset(req: ClientRequest, reason?: Error): void {
  const socket = req.socket;
  if (socket && !socket.destroyed && !socket.writableEnded) {
    try {
      socket.resetAndDestroy();
    } catch {
      // Not a plain TCP socket (TLS): Node offers no reset there, and the close below is all there is.
    }
  }
  req.destroy(reason);
}

interface Wire {
  req: ClientRequest;
  closed: boolean;
  /** Rejects the write in progress when the request closes under it. */
  stopWrite: ((err: Error) => void) | undefined;
  /** Every byte was written and the request ended. */
  ended: boolean;
}

async function sendBody(wire: Wire, fd: number, offset: number, size: number, opts: WireOptions): Promise<void> {
  const write = (slice: Buffer) =>
    new Promise<void>((resolve, reject) => {
      if (wire.closed) return reject(new Error('request closed'));
      wire.stopWrite = reject;
      opts.onWriting?.(true);
      wire.req.write(slice, (err) => {
        opts.onWriting?.(false);
        wire.stopWrite = undefined;
        if (err) reject(err);
        else resolve();
      });
    });
  const readNext = (length: number, position: number) => {
    const held = lent(opts.md5 !== undefined);
    const p = readAt(fd, held.buffer, length, position);
    p.catch(() => {}); // awaited on the next turn; a failure while this chunk is written must not count as unhandled
    return { held, chunk: p };
  };
  let next: ReturnType<typeof readNext> | undefined = readNext(Math.min(READ_CHUNK, size), offset);
  let read = 0;
  let sent = 0;
  let failed = false;
  try {
    while (next) {
      const { held } = next;
      let chunk: Buffer;
      try {
        chunk = await next.chunk;
      } catch (err) {
        next = undefined;
        held.release();
        held.release();
        throw err;
      }
      read += chunk.length;
      // The next read fills another buffer while this chunk is hashed and written.
      next = read < size ? readNext(Math.min(READ_CHUNK, size - read), offset + read) : undefined;
      // Without a hash, the chunk's hash side lets go of it at once.
      if (opts.md5) opts.md5.update(chunk, held.release);
      else held.release();
      try {
        for (let at = 0; at < chunk.length; ) {
          const slice = chunk.subarray(at, at + Math.min(WRITE_SLICE, opts.bandwidth.sliceSize(), chunk.length - at));
          if (opts.bandwidth.limit) {
            opts.pacing.waiting = true;
            try {
              await opts.bandwidth.take(slice.length, opts.signal);
            } finally {
              opts.pacing.waiting = false;
            }
          }
          await write(slice);
          at += slice.length;
          sent += slice.length;
          opts.onSent(sent);
        }
      } finally {
        // Every write of the chunk completed, or the request is closed (a closed socket reads
        // nothing more from a buffer): the chunk's write side lets go of it.
        held.release();
      }
    }
    wire.req.end();
    wire.ended = true;
  } catch (err) {
    // The chunks left waiting are hashed now, which gives their slots back: this part's digest
    // will not be asked for, and its lane would hold them until another part's batch took it.
    failed = true;
    throw err;
  } finally {
    if (next) {
      // A read still in flight fills its buffer until it ends: let go only then.
      const { held, chunk } = next;
      await chunk.catch(() => {});
      held.release();
      held.release();
    }
    if (failed) opts.md5?.settle();
  }
}
