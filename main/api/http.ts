import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
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
import { DEADLINE_CODE } from './retry-table.js';
import { errorBody } from './schemas.js';

/** How long making a connection, and then its TLS handshake, may take (ms) before the address counts as unreachable. */
const CONNECT_TIMEOUT_MS = 10_000;

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
const MAX_ANSWER_BODY = 64 * 1024 * 1024;

/** The idle timeout of a JSON call by default (ms): no byte sent or received for this long. */
const JSON_IDLE_TIMEOUT_MS = 60_000;

/**
 * The slowest link the client is built for (bytes per second): the rate at which an answer's
 * bytes still count as coming (a call's total deadline, the gateway watcher) and a part's bytes
 * as going (main/engine/parts/stall.ts). A link slower than this is told as too slow, not waited out.
 */
export const SLOWEST_LINK_BYTES_PER_S = 16 * 1024;

/**
 * What a JSON answer of the interface should carry at most (bytes), to size its total deadline:
 * a sign-in, an add-capture summary with its manifest, a design time or export answer (a few
 * hundred bytes each, 16 KiB with room); an upload record whose `missingParts` lists up to 10,000
 * part numbers (§4.7, §4.9); and per presigned part of §4.5 (its URL, with a 4 KiB STS query, and
 * its fields).
 */
export const ANSWER_BYTES = { small: 16 * 1024, uploadRecord: 128 * 1024, perPresignedPart: 8 * 1024 } as const;

/**
 * A JSON call's total deadline (ms), counted from its connection: the idle timeout (`idleMs`, for
 * the service to do its work and start answering) plus `answerBytes` at `minRate` bytes per
 * second. A call can trickle (its status, then a byte now and then) without ever being silent:
 * this is what ends it (docs/engine.md, "Every wait has a deadline").
 */
function jsonDeadlineMs(idleMs: number, answerBytes: number, minRate = SLOWEST_LINK_BYTES_PER_S): number {
  return idleMs + Math.ceil((answerBytes * 1000) / minRate);
}

/** Options shared by the JSON clients. Times in ms, sizes in bytes. */
export interface JsonClientOptions {
  retry?: RetryPolicy;
  /**
   * Idle timeout in ms (default 60 000): the call fails when no byte is sent or received for this
   * long, waiting for the answer included. An answer that keeps arriving is read to its end however
   * long it takes (a §4.5 answer of thousands of URLs on a slow downlink): timeouts count silence,
   * not work (docs/decisions/0006-json-idle-timeout.md).
   */
  timeoutMs?: number;
  /** The most of a success answer's body that is read (default MAX_ANSWER_BODY). */
  maxAnswerBytes?: number;
  /**
   * The slowest link (bytes per second, default SLOWEST_LINK_BYTES_PER_S) at which an answer of
   * the size it should carry must arrive: with the idle timeout, its total deadline (jsonDeadlineMs).
   */
  minLinkRate?: number;
  /** Who answers, as said when an answer is too slow (default "The capture service"). */
  service?: string;
}

/**
 * One call watched by whoever tells a silent or trickling service from a slow one
 * (main/engine/outages/gateway-watch.ts; docs/engine.md, "A silent capture gateway"): `alive()` when an
 * answer begins (its headers, whatever the status) and when it ends, `received(bytes)` as its body
 * arrives, `close()` once when the try ends, however it ends.
 */
export interface CallWatch {
  /** An answer began (its status and headers) or ended: the service answered. */
  alive(): void;
  /** `bytes` of the answer's body have arrived so far: life only at the pace they came (gateway-watch.ts). */
  received(bytes: number): void;
  close(): void;
}

/**
 * A JSON client: a got instance with got's own retry off (`retry: { limit: 0 }`), and the policy
 * by which `sendJson` retries its calls itself (main/api/retry.ts, the one owner of JSON-call
 * retries: what the one retry table (retry-table.ts) retries for a service call, per
 * capture-upload-interface.md §7, with the delays of §8). A call that must not be repeated (add-capture) uses a client whose policy has 0 retries.
 */
export interface JsonClient {
  got: Got;
  retry: RetryPolicy;
  /** The most of a success answer's body that is read (bytes). */
  maxAnswerBytes: number;
  /** Opens a watch for each try of a call (CallWatch); none by default. */
  watch?: () => CallWatch;
  /** The idle timeout (ms) its calls were made with, the base of their total deadline. */
  idleMs: number;
  /** The slowest link its answers must keep up with (bytes per second; JsonClientOptions.minLinkRate). */
  minLinkRate: number;
  /** Who answers, for the message of an answer too slow. */
  service: string;
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
  return {
    got: instance,
    retry: policy,
    maxAnswerBytes: opts.maxAnswerBytes ?? MAX_ANSWER_BODY,
    idleMs: opts.timeoutMs ?? JSON_IDLE_TIMEOUT_MS,
    minLinkRate: opts.minLinkRate ?? SLOWEST_LINK_BYTES_PER_S,
    service: opts.service ?? 'The capture service',
  };
}

/**
 * Sends one request and returns its body parsed by `schema`, sending it again as `client.retry`
 * says for what §7 retries (withRetries). When `signal` aborts, the request and any wait between
 * tries stop at once with CancelledError. Each try has a total deadline: jsonDeadlineMs of the
 * client's idle timeout and `answerBytes`, what its answer should carry at most (default
 * ANSWER_BYTES.small).
 * Throws HttpStatusError (with the service's `message`) for an error status, NetworkError when no
 * answer arrived (code DEADLINE_CODE when the answer took longer than its deadline: "… answers too
 * slowly"), ResponseShapeError when a 2xx body is not JSON of the expected shape. `check`, when
 * given, judges each parsed answer inside the try (what it throws is retried or not as the retry
 * table says for it, as any failure of the try is): an answer of the right shape that does not fit
 * what the caller knows (engine/parts/presigned-urls.ts).
 */
export function sendJson<T>(
  client: JsonClient,
  url: string,
  init: OptionsInit,
  schema: z.ZodType<T>,
  signal?: AbortSignal,
  answerBytes: number = ANSWER_BYTES.small,
  check?: (answer: T, request: FailedRequest) => void,
): Promise<T> {
  const deadlineMs = jsonDeadlineMs(client.idleMs, answerBytes, client.minLinkRate);
  return withRetries(
    client.retry,
    async () => {
      const answer = await sendOnce(client, url, init, schema, deadlineMs, signal, client.watch?.());
      check?.(answer, describeRequest((init.method ?? 'GET').toUpperCase(), url));
      return answer;
    },
    signal,
  );
}

/**
 * One try of sendJson, with the same errors; an answer over `client.maxAnswerBytes` is a
 * ResponseShapeError, one not whole `deadlineMs` after its connection was made a NetworkError
 * with DEADLINE_CODE. `watch` hears its signs of life.
 */
async function sendOnce<T>(
  jsonClient: JsonClient,
  url: string,
  init: OptionsInit,
  schema: z.ZodType<T>,
  deadlineMs: number,
  signal?: AbortSignal,
  watch?: CallWatch,
): Promise<T> {
  const client = jsonClient.got;
  const maxAnswerBytes = jsonClient.maxAnswerBytes;
  const method = (init.method ?? 'GET').toUpperCase() as Method;
  const request = describeRequest(method, url);
  let body: string;
  // An error answer's status, once its body grew past MAX_ERROR_BODY and reading it was stopped.
  let tooLarge: number | undefined;
  // Set once a success answer grew past maxAnswerBytes and reading it was stopped.
  let answerTooLarge = false;
  // Set once the deadline passed and the request was stopped: the body's bytes so far, and when.
  let tooSlow: { bytes: number; afterMs: number } | undefined;
  let received = 0;
  let deadline: NodeJS.Timeout | undefined;
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
    // The deadline counts from the connection (its making has a timeout of its own, and a
    // connection reused by keep-alive is made already).
    const startDeadline = () => {
      const from = performance.now();
      deadline ??= setTimeout(() => {
        tooSlow = { bytes: received, afterMs: performance.now() - from };
        pending.cancel();
      }, deadlineMs);
    };
    void pending.on('request', (req: ClientRequest) => {
      req.once('socket', (socket: Socket) => {
        if (socket.connecting) socket.once('connect', startDeadline);
        else startDeadline();
      });
      req.once('response', (res) => {
        watch?.alive();
        errorStatus = (res.statusCode ?? 0) >= 400 ? res.statusCode : undefined;
      });
    });
    void pending.on('downloadProgress', (p: { transferred: number }) => {
      received = p.transferred;
      if (p.transferred > 0) watch?.received(p.transferred);
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
    watch?.alive();
    if (isWebPage(res.headers['content-type'], body)) throw webPage(request);
  } catch (err) {
    if (signal?.aborted) throw new CancelledError();
    if (tooSlow)
      throw new NetworkError(
        `${jsonClient.service} answers too slowly: ${tooSlow.bytes} bytes in ${Math.round(tooSlow.afterMs / 1000)} s, more than an answer of this call may take (${Math.round(deadlineMs / 1000)} s at the slowest link accepted, ${Math.round(jsonClient.minLinkRate / 1024)} KiB/s)`,
        request,
        DEADLINE_CODE,
      );
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
    clearTimeout(deadline);
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
function toClientError(err: unknown, request: FailedRequest): Error {
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
