import type { Got, Method, OptionsInit, RequestError } from 'got';
import { HTTPError, TimeoutError, got } from 'got';
import type { z } from 'zod';
import type { FailedRequest, RetryPolicy } from './errors.js';
import {
  CancelledError,
  HttpStatusError,
  NetworkError,
  ResponseShapeError,
  describeRequest,
  recommendedRetryPolicy,
} from './errors.js';
import { UnreachableError, unreachableFrom } from './unreachable-error.js';
import { parseS3Error, s3ErrorText } from './s3-error.js';
import { retryAfterMs } from './storage-answer.js';
import { withRetries } from './retry.js';
import { errorBody } from './schemas.js';

/** How long making a connection, and then its TLS handshake, may take (ms) before the address counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The most of an error answer's body that is read (bytes): the interface's error JSON and S3's XML
 * are a few hundred bytes. A larger error body stops being read there and its connection is
 * closed, so a 300 MiB error page cannot fill memory. Success bodies are not held
 * to it (a presign answer for thousands of parts is large).
 */
export const MAX_ERROR_BODY = 64 * 1024;

/**
 * The most of a success answer's body that is read (bytes). The largest answer the interface
 * gives is §4.5's: every missing part's presigned URL, with no paging. 10,000 parts (S3's limit)
 * whose URLs carry 4 KiB queries (STS session tokens) are about 45 MB; this leaves room above it.
 * A larger answer stops being read there and its connection is closed.
 */
export const MAX_ANSWER_BODY = 64 * 1024 * 1024;

/** The idle timeout of a JSON call by default (ms): no byte sent or received for this long. */
export const JSON_IDLE_TIMEOUT_MS = 60_000;

/** Options shared by the JSON clients. Times in ms, sizes in bytes. */
export interface JsonClientOptions {
  retry?: RetryPolicy;
  /**
   * Idle timeout in ms (default 60 000): the call fails when no byte is sent or received for this
   * long, waiting for the answer included. An answer that keeps arriving is read to its end however
   * long it takes (a §4.5 answer of thousands of URLs on a slow downlink): timeouts count silence,
   * not work (docs/decisions/tolerant-json-idle-timeout.md).
   */
  timeoutMs?: number;
  /** The most of a success answer's body that is read (default MAX_ANSWER_BODY). */
  maxAnswerBytes?: number;
}

/**
 * One call watched by whoever tells a silent service from a slow one (main/engine/gateway-watch.ts;
 * docs/engine.md, "A silent capture gateway"): `alive()` each time the service shows life (the
 * answer's headers, a byte of its body, or its end, whatever the status), `close()` once when the
 * try ends, however it ends.
 */
export interface CallWatch {
  alive(): void;
  close(): void;
}

/**
 * A JSON client: a got instance with got's own retry off (`retry: { limit: 0 }`), and the policy
 * by which `sendJson` retries its calls itself (main/api/retry.ts, the one owner of JSON-call
 * retries: network errors, timeouts and the statuses of its RETRIED_STATUSES, per
 * capture-upload-interface.md §7, with the delays of §8). A call that must not be repeated (add-capture) uses a client whose policy has 0 retries.
 */
export interface JsonClient {
  got: Got;
  retry: RetryPolicy;
  /** The most of a success answer's body that is read (bytes). */
  maxAnswerBytes: number;
  /** Opens a watch for each try of a call (CallWatch); none by default. */
  watch?: () => CallWatch;
}

/**
 * A JSON client with the given policy (default §8 recommended: 4 retries, 500 ms × 2^attempt +
 * 0–500 ms) and timeouts (idle `timeoutMs`, default 60 000 ms; connect 10 s), reading at most
 * `maxAnswerBytes` of an answer.
 */
export function createJsonGot(opts: JsonClientOptions = {}): JsonClient {
  const policy = opts.retry ?? recommendedRetryPolicy();
  const instance = got.extend({
    // A connection (or TLS handshake) not made within 10 s is told apart from a request that
    // went out and got no answer: only the latter may have reached the service.
    // `socket` is the socket's idle timeout (request.setTimeout): silence, not the whole answer's
    // time, as the part PUTs' stall timeout. No whole-request timeout: a §4.5 answer for 1,024
    // parts with 4 KiB queries is 4.8 MB, 147 s at 32 KiB/s, and must be read to its end.
    timeout: {
      socket: opts.timeoutMs ?? JSON_IDLE_TIMEOUT_MS,
      connect: CONNECT_TIMEOUT_MS,
      secureConnect: CONNECT_TIMEOUT_MS,
    },
    responseType: 'text',
    // Retries are withRetries' alone (retry.ts): two layers repeating one call multiply its tries.
    retry: { limit: 0 },
  });
  return { got: instance, retry: policy, maxAnswerBytes: opts.maxAnswerBytes ?? MAX_ANSWER_BODY };
}

/**
 * Sends one request and returns its body parsed by `schema`, sending it again as `client.retry`
 * says for what §7 retries (withRetries). When `signal` aborts, the request and any wait between
 * tries stop at once with CancelledError.
 * Throws HttpStatusError (with the service's `message`) for an error status, NetworkError when no
 * answer arrived, ResponseShapeError when a 2xx body is not JSON of the expected shape.
 */
export function sendJson<T>(
  client: JsonClient,
  url: string,
  init: OptionsInit,
  schema: z.ZodType<T>,
  signal?: AbortSignal,
): Promise<T> {
  return withRetries(
    client.retry,
    () => sendOnce(client.got, url, init, schema, client.maxAnswerBytes, signal, client.watch?.()),
    signal,
  );
}

/** One try of sendJson, with the same errors; an answer over `maxAnswerBytes` is a ResponseShapeError. `watch` hears its signs of life. */
async function sendOnce<T>(
  client: Got,
  url: string,
  init: OptionsInit,
  schema: z.ZodType<T>,
  maxAnswerBytes: number,
  signal?: AbortSignal,
  watch?: CallWatch,
): Promise<T> {
  const method = (init.method ?? 'GET').toUpperCase() as Method;
  const request = describeRequest(method, url);
  let body: string;
  // An error answer's status, once its body grew past MAX_ERROR_BODY and reading it was stopped.
  let tooLarge: number | undefined;
  // Set once a success answer grew past maxAnswerBytes and reading it was stopped.
  let answerTooLarge = false;
  try {
    signal?.throwIfAborted();
    // got's own `signal` stops the request at once; with its retry off there is no sleep of got's
    // it could miss (the hand-made abort plumbing this replaced existed for that sleep).
    const pending = client(url, {
      ...init,
      method,
      isStream: false,
      resolveBodyOnly: false,
      responseType: 'text',
      signal,
    });
    let errorStatus: number | undefined;
    // The status as soon as the headers arrive (got's own 'response' comes after the whole body).
    // (got's `on` hands back the request's own promise, awaited below: `void` marks it seen.)
    void pending.on(
      'request',
      (req: { once(event: 'response', fn: (res: { statusCode?: number }) => void): unknown }) =>
        req.once('response', (res) => {
          watch?.alive();
          errorStatus = (res.statusCode ?? 0) >= 400 ? res.statusCode : undefined;
        }),
    );
    void pending.on('downloadProgress', (p: { transferred: number }) => {
      if (p.transferred > 0) watch?.alive();
      if (errorStatus !== undefined && tooLarge === undefined && p.transferred > MAX_ERROR_BODY) {
        tooLarge = errorStatus;
        pending.cancel(); // destroys the socket: nothing more of the body is read
      } else if (errorStatus === undefined && !answerTooLarge && p.transferred > maxAnswerBytes) {
        // By bytes read, not Content-Length: got reports the length before the status is known here.
        answerTooLarge = true;
        pending.cancel();
      }
    });
    const res = (await pending) as {
      body: string;
      headers: Record<string, string | string[] | undefined>;
    };
    body = res.body;
    if (isWebPage(res.headers['content-type'], body)) throw webPage(request);
  } catch (err) {
    if (signal?.aborted) throw new CancelledError();
    if (answerTooLarge)
      throw new ResponseShapeError(
        `${method} ${request.path} answered more than ${Math.round(maxAnswerBytes / 1024 / 1024)} MiB (not read)`,
        request,
      );
    if (tooLarge !== undefined)
      throw new HttpStatusError(
        `The service answered ${tooLarge} with an error body over ${MAX_ERROR_BODY / 1024} KiB (not read)`,
        tooLarge,
        request,
      );
    if (err instanceof UnreachableError) throw err;
    throw toClientError(err, request);
  } finally {
    watch?.close();
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new ResponseShapeError(`${method} ${request.path} answered something that is not JSON`, request);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ResponseShapeError(
      `${method} ${request.path} answered an unexpected shape: ${issue.path.join('.') || '(body)'} ${issue.message}`,
      request,
    );
  }
  return parsed.data;
}

/**
 * Turns a got error into HttpStatusError (with the service's message, S3's code, and the wait its
 * Retry-After asked for in ms) or NetworkError (never exposing the URL's query or headers).
 */
export function toClientError(err: unknown, request: FailedRequest): Error {
  if (err instanceof HTTPError) {
    const status = err.response.statusCode;
    const text = typeof err.response.body === 'string' ? err.response.body : '';
    // A page from a portal or proxy, not the service: a 5xx page may come from a proxy after the
    // service acted, so only answers below 500 are read as "never reached it".
    if (status < 500 && isWebPage(err.response.headers['content-type'], text)) return webPage(request, status);
    // Retry-After (seconds or an HTTP-date) says when a 429 or 503 may be sent again (RFC 9110 §10.2.3).
    return new HttpStatusError(
      serviceMessage(text) ?? `The service answered ${status}`,
      status,
      request,
      s3CodeOf(text),
      retryAfterMs(err.response.headers['retry-after']),
    );
  }
  const e = err as RequestError;
  if (e && typeof e === 'object' && 'code' in e) {
    const unreachable = unreachableFrom(request, e.code, e instanceof TimeoutError ? e.event : undefined);
    if (unreachable) return unreachable;
    // got's error is not kept as the cause: it carries the request's options, and with them the
    // bearer token and the presigned URL's signature, which must never reach a log.
    return new NetworkError(`No answer from the service: ${e.code ?? 'network error'}`, request, e.code);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** The `message` of a JSON error body, or S3's `<Code>: <Message>` (references decoded), if the body has one. */
export function serviceMessage(text: string): string | undefined {
  try {
    const parsed = errorBody.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data.message;
  } catch {
    // not JSON; maybe S3 XML
  }
  const s3 = parseS3Error(text);
  return s3 ? s3ErrorText(s3) : undefined;
}

/** S3's error code of an XML error body, if it is one (capture-upload-interface.md §7 classifies by it). */
export function s3CodeOf(text: string): string | undefined {
  return parseS3Error(text)?.code;
}

/** Whether an answer is a web page (HTML) rather than the interface's JSON or S3's XML. */
export function isWebPage(contentType: string | string[] | undefined, body: string): boolean {
  const type = Array.isArray(contentType) ? contentType[0] : contentType;
  if (type && /^text\/html\b|^application\/xhtml\+xml\b/i.test(type)) return true;
  return /^\s*(<!doctype html|<html\b)/i.test(body.slice(0, 512));
}

function webPage(request: FailedRequest, status = 200): UnreachableError {
  return new UnreachableError(
    `something else answered (HTTP ${status}) with a web page instead of the service's answer: a captive portal (sign in to the Wi-Fi in a browser) or a proxy, or the wrong address`,
    request,
    'HTML_ANSWER',
  );
}
