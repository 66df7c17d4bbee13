/**
 * Errors of the API clients and the part uploader, small classes in the manner of Uppy's
 * NetworkError and tus's DetailedError: a `name`, a `cause`, and the request that failed
 * (method and path only: presigned URLs carry their signature in the query, and a signature is a
 * secret, so no URL, header or body of a request ever appears in an error).
 */

/** What request failed: method and URL path (no query, no host credentials). */
export interface FailedRequest {
  method: string;
  path: string;
  /** `host:port` the request went to (the port always shown, so a wrong one can be spotted), when known. */
  host?: string;
}

/** Strips a URL to its host, port and path so no query (signatures, tokens) reaches a message or a log. */
export function describeRequest(method: string, url: string | URL): FailedRequest {
  try {
    const u = new URL(url);
    const port = u.port || (u.protocol === 'https:' ? '443' : u.protocol === 'http:' ? '80' : '');
    return { method, path: u.pathname, host: port ? `${u.hostname}:${port}` : u.hostname };
  } catch {
    return { method, path: '(invalid URL)' };
  }
}

/** The network failed (DNS, refused, reset, timeout, stalled transfer) before an answer arrived. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(
    message: string,
    readonly request: FailedRequest,
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The service or storage answered with an error status. `message` is the service's own message
 * (the `message` of a JSON body, or S3's `<Code>: <Message>`) when there is one.
 * `s3Code` is S3's error code (`AccessDenied`, `RequestTimeout`, `SlowDown`, ...) for storage answers.
 * `retryAfterMs` is the wait the answer's Retry-After asked for (ms), when it had one.
 */
export class HttpStatusError extends Error {
  override readonly name = 'HttpStatusError';
  constructor(
    message: string,
    readonly status: number,
    readonly request: FailedRequest,
    readonly s3Code?: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * Storage kept refusing a part (403, S3's AccessDenied or a page from something in between) even
 * with freshly presigned URLs (§7: a 403 on the PUT means presign again). Not the queue's
 * credentials (the gateway accepted them to presign): a passing failure, so the file waits on
 * the durable retry schedule with this cause shown. `cause` is storage's last answer.
 */
export class StorageRefusedError extends Error {
  override readonly name = 'StorageRefusedError';
  constructor(
    message: string,
    override readonly cause: HttpStatusError,
  ) {
    super(message, { cause });
  }
}

/** A 2xx answer that does not have the shape the interface document gives. */
export class ResponseShapeError extends Error {
  override readonly name = 'ResponseShapeError';
  constructor(
    message: string,
    readonly request: FailedRequest,
  ) {
    super(message);
  }
}

/**
 * A presign-missing answer (§4.5) that does not fit what the client knows of the file: a part
 * number outside 1…N for its size and part size, a part listed twice, a URL whose scheme cannot
 * carry a part or whose `partNumber` query names another part, a layout other than the one
 * registered. Thrown before any byte is sent. Asked again as §8 retries a call, then the file
 * needs a person (retry-table.ts): a gateway whose part arithmetic is wrong answers the same
 * tomorrow, so it is never left on the durable schedule as an outage. `message` names the file
 * and what the answer held ("clip.mp4: the capture service listed part 10001 for a 3-part file;
 * …"), never a URL's query (a signature is a secret).
 */
export class PresignAnswerError extends Error {
  override readonly name = 'PresignAnswerError';
  constructor(
    readonly fileName: string,
    /** What the answer held, as a clause: "the capture service listed part 10001 for a 3-part file". */
    readonly detail: string,
    readonly request: FailedRequest,
  ) {
    super(
      `${fileName}: ${detail}. Nothing of it was sent. Tell the platform's support; retry the file once they have fixed it.`,
    );
  }
}

/** A part PUT answered 200 without an ETag header, or with one that is not the part's MD5 (§7: counts as failed). */
export class PartIntegrityError extends Error {
  override readonly name = 'PartIntegrityError';
}

/**
 * The file's bytes may differ from those queued: another size, modification time, or first or
 * last MiB (file-identity.ts `contentDifference`), or, once its status-change time, inode or
 * device moved, a part storage holds whose bytes now have another MD5 (engine/parts/stored-bytes.ts).
 * Checked before and after every part and before complete-batch (§4.7), so a file changed while
 * it uploads is never finalized as a mix of old and new bytes.
 */
export class FileChangedError extends Error {
  override readonly name = 'FileChangedError';
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(
      `${path} changed while uploading (${detail}): nothing more of it is sent and none of it was finalized. Adding it again, with the other files of its recording, registers a new capture for the whole recording at the platform, and this one is then shown as replaced.`,
    );
  }
}

/**
 * A local file could not be read while it was being sent: permission denied, vanished, card
 * unmounted, I/O error. Never a network error, never retried by itself: a person must make the
 * file readable again (or add it again), so the retry table (retry-table.ts) answers `fail`;
 * but where the fault is this computer's own (ENOMEM, or EIO of a file on no card or removable
 * drive: `removable` false), it answers `stop` (localFaultMessage).
 */
export class LocalFileError extends Error {
  override readonly name = 'LocalFileError';
  /** Whether the file is on a card or a removable drive (LocalFileError.onRemovableMedia), not this computer's own disk. */
  readonly removable: boolean;
  constructor(
    readonly path: string,
    readonly code: string,
  ) {
    super(`${path} cannot be read (${code}): ${LocalFileError.advice(code)}`);
    this.removable = LocalFileError.onRemovableMedia(path);
  }

  /**
   * Whether `path` is on a card or a drive that can be pulled out: under a `DCIM` folder (a
   * camera's card, as card-root.ts cardRootOf finds it), under the folders systems mount removable
   * media in (`/media/`, `/run/media/`, `/Volumes/`), or on a Windows drive other than C:. Its
   * read errors are the device's (a card on its way out); any other file is on this computer's own disk.
   */
  static onRemovableMedia(path: string): boolean {
    const p = path.replace(/\\/g, '/');
    if (/(^|\/)DCIM(\/|$)/i.test(p)) return true;
    if (/^\/(media|run\/media|Volumes)\//.test(p)) return true;
    return /^[a-z]:\//i.test(p) && !/^c:\//i.test(p);
  }

  /** What a person can do about a local read error, by its errno code. */
  static advice(code: string): string {
    if (code === 'EACCES' || code === 'EPERM')
      return 'this user may not read it; fix its permissions, then retry the file.';
    if (code === 'ENOENT' || code === 'ENOTDIR')
      return 'it is gone; reconnect the card or drive it was on, then retry the file.';
    if (code === 'EIO' || code === 'ENXIO' || code === 'ENODEV')
      return 'the card or drive failed to read; reconnect it, then retry the file.';
    if (code === 'ETIMEDOUT') return 'the card or drive stopped answering; reconnect it, then retry the file.';
    return 'check the card or drive it is on, then retry the file.';
  }
}

/**
 * The service refuses the queue's credentials themselves (§5, §7): the sign-in service refused the
 * email or password, or the gateway answered 401 to a fresh token, 403 naming the API key or the
 * project's stage, or 400 "Does not have access to the project" (the project id). Every other capture and file would meet
 * the same answer, so the engine stops the whole queue with this one message and keeps every
 * capture queued, instead of refusing them one by one. `message` says what to fix.
 */
export class CredentialsRefusedError extends Error {
  override readonly name = 'CredentialsRefusedError';
  constructor(
    message: string,
    override readonly cause: Error,
  ) {
    super(message, { cause });
  }
}

/**
 * The CredentialsRefusedError an error of a gateway call (§4.4, §4.5, §4.7, §4.9) amounts to, or
 * undefined when it concerns only that call (any other 403 among them: it fails that capture or
 * file with the service's message). Never apply it to storage PUTs: their 403 means an expired
 * presigned URL (§7), never the queue's credentials.
 */
export function credentialsRefusal(err: unknown): CredentialsRefusedError | undefined {
  if (err instanceof CredentialsRefusedError) return err;
  const signIn = err instanceof RequestNotSentError ? err.cause : undefined;
  if (
    signIn instanceof HttpStatusError &&
    signIn.status >= 400 &&
    signIn.status < 500 &&
    ![408, 429].includes(signIn.status)
  ) {
    return new CredentialsRefusedError(
      `The sign-in service refuses the account (${signIn.message}): fix the email or password in the settings`,
      signIn,
    );
  }
  if (!(err instanceof HttpStatusError) || err.s3Code) return undefined;
  if (err.status === 401) {
    return new CredentialsRefusedError(
      `The service refuses the account even after signing in again (${err.message}): check the account in the settings`,
      err,
    );
  }
  if (err.status === 403 && /project is not in an allowed stage/i.test(err.message)) {
    return new CredentialsRefusedError(
      `The service refuses uploads to this project (${err.message}): ask for the project to be opened, or choose another project in the settings`,
      err,
    );
  }
  // Any other 403 may concern one capture or file only (the interface names no other meaning):
  // only one that names the API key is the key's, and stops the queue.
  if (err.status === 403 && /api[ -]?key/i.test(err.message)) {
    return new CredentialsRefusedError(
      `The service refuses the API key (${err.message}): fix the API key in the settings`,
      err,
    );
  }
  if (err.status === 400 && /does not have access to the project/i.test(err.message)) {
    return new CredentialsRefusedError(
      `The service refuses the project id (${err.message}): fix the project id in the settings`,
      err,
    );
  }
  return undefined;
}

/**
 * A service call that never left this machine because signing in failed first (§4.1). The cause
 * is the sign-in error. Callers of non-idempotent calls (add-capture) may safely send again.
 */
export class RequestNotSentError extends Error {
  override readonly name = 'RequestNotSentError';
  constructor(override readonly cause: Error) {
    super(`Signing in failed, so nothing was sent: ${cause.message}`, { cause });
  }
}

/** The operation was cancelled (pause, cancel, shutdown); never retried. */
export class CancelledError extends Error {
  override readonly name = 'CancelledError';
  constructor(message = 'Cancelled') {
    super(message);
  }
}

/**
 * What one failed request's own layer does with it (capture-upload-interface.md §7), as decided by
 * the one retry table (retry-table.ts retryDecision):
 * `retry` (back off and send it again, §8's retries),
 * `resign` (storage 403/AccessDenied: presign again and retry with the new URL),
 * `reauth` (401 from the service: sign in again, once),
 * `slowdown` (429, SlowDown, storage 503: pause every new part request for the advised time, then retry),
 * `fail` (not sent again by this layer),
 * `cancel` (cancelled: stop at once),
 * `stop` (a fault of this computer itself, its memory or its own disk: every file would meet it,
 * so the engine stops with one sentence, localFaultMessage, and nothing is marked failed).
 */
export type ErrorAction = 'retry' | 'resign' | 'reauth' | 'slowdown' | 'fail' | 'cancel' | 'stop';

/** Retry timing: how many retries after the first try, and the delay before retry `attempt` (0-based), in ms. */
export interface RetryPolicy {
  retries: number;
  delayMs(attempt: number): number;
}

/**
 * The recommended custom-client policy of §8: 4 retries after the first try, waiting
 * 500 ms × 2^attempt plus a random 0–500 ms. `baseMs`/`jitterMs` can be lowered for tests.
 */
export function recommendedRetryPolicy(baseMs = 500, jitterMs = 500, retries = 4): RetryPolicy {
  return { retries, delayMs: (attempt) => baseMs * 2 ** attempt + Math.random() * jitterMs };
}

/** Whether `err` says this computer's memory could not be had: ENOMEM, SQLite's SQLITE_NOMEM, a refused allocation. */
export function isOutOfMemory(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'ENOMEM' || code === 'ERR_MEMORY_ALLOCATION_FAILED') return true;
  if (typeof code === 'string' && code.startsWith('SQLITE_NOMEM')) return true;
  return err instanceof RangeError && /allocation failed|out of memory/i.test(err.message);
}

/**
 * The one sentence for a fault of this computer itself (the retry table's `stop`): what failed,
 * where, and what to do; nothing was marked failed and nothing queued was lost, since every file
 * would have met it. "This computer ran out of memory reading /…/VID.insv (ENOMEM): …",
 * "This computer's own disk failed to read /…/walk.mp4 (EIO): …".
 */
export function localFaultMessage(err: unknown): string {
  const path = err instanceof LocalFileError ? err.path : undefined;
  const raw = (err as { code?: unknown } | null)?.code;
  const code = typeof raw === 'string' ? raw : err instanceof Error ? err.message : String(err);
  const after = 'then run again. Nothing was marked failed; nothing queued was lost.';
  if (isOutOfMemory(err))
    return `This computer ran out of memory${path ? ` reading ${path}` : ''} (${code}): close other programs, or run with a lower --concurrency, ${after}`;
  return `This computer's own disk failed to read ${path ?? 'a file'} (${code}): check the disk (its health, its free space, its cable), ${after}`;
}

/** A short, human-readable reason for an error, safe to show and to log (no URLs, no secrets). */
export function reasonOf(err: unknown): string {
  if (err instanceof HttpStatusError)
    return `${err.message} (HTTP ${err.status} on ${err.request.method} ${err.request.path})`;
  // A network error names the host and port it tried: the commonest cause is a wrong address or a proxy.
  if (err instanceof NetworkError)
    return `${err.message} (${err.request.method} ${err.request.host ?? ''}${err.request.path})`;
  if (err instanceof Error) return err.message;
  return String(err);
}
