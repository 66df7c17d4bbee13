import type { OptionsInit } from 'got';
import { decodeJwt } from 'jose';
import { z } from 'zod';
import type { FailedRequest } from './errors.js';
import { CancelledError, HttpStatusError, RequestNotSentError } from './errors.js';
import { UnreachableError } from './unreachable-error.js';
import type { CallWatch, JsonClient, JsonClientOptions } from './http.js';
import { ANSWER_BYTES, createJsonGot, sendJson } from './http.js';
import type { AddCaptureResult, CaptureUploadStatus, PresignResponse, UploadRecord } from './schemas.js';
import {
  absentFields,
  addCaptureResponse,
  captureUploadStatusResponse,
  interfaceFields,
  designUpdateResponse,
  exportResponse,
  presignResponse,
  signInResponse,
  uploadRecordResponse,
} from './schemas.js';

/** Where the capture gateway and sign-in service are, and the credentials for them (§2 "Credentials"). */
export interface GatewayConfig {
  /** {base_url} of the capture gateway. */
  baseUrl: string;
  /** {auth_url} of the sign-in service. */
  authUrl: string;
  /** Project API key, sent as x-api-key. */
  apiKey: string;
  /** Project id, sent as x-project-id. */
  projectId: string;
  email: string;
  password: string;
}

/** The Capture of §2 as sent to add-capture. Timestamps ISO 8601; sizes in bytes. */
export interface CaptureRequest {
  project: string;
  structure: string;
  captureDateTime: string;
  type: 'exterior' | 'interior';
  mode: string;
  sourceType: 'bot';
  deviceId?: string;
  design?: string;
  deviceInfo?: {
    type: 'primary' | 'secondary';
    deviceId: string;
    deviceName: string;
    deviceOSVersion: string;
    deviceAPIVersion: string;
  }[];
  metaDetails?: {
    frameRate?: number;
    type?: string;
    videoType?: string;
    cameraName?: string;
    deviceID?: string;
    startPoint?: [number, number, number];
    direction?: [number, number, number];
    startTime?: string;
  };
  files: { frameIndex: number; fileName: string; contentType: string; size: number; externalId?: string }[];
}

/** A part as reported to complete-batch (§2 "Reported part"): the ETag exactly as storage returned it, quotes included. */
export interface ReportedPart {
  partNumber: number;
  etag: string;
  size: number;
}

/** Options of a CaptureGateway: those of its JSON client, and where to note what answers left out. */
export interface GatewayOptions extends JsonClientOptions {
  /**
   * Told once per answer kind and field (for this gateway's life) that an answer lacked a field
   * the interface's tables list but this client does not need (docs/decisions/0003-tolerant-reader.md).
   * The line names fields only, never values.
   */
  log?: (message: string) => void;
}

// A token is renewed this long before it expires, so a call never starts with a token about to lapse.
const TOKEN_MARGIN_MS = 5 * 60_000;

/**
 * Client of the capture gateway and its sign-in service (capture-upload-interface.md §4–§5).
 *
 * Every call carries the standard headers (authorization Bearer JWT, x-api-key, x-project-id),
 * and content-type application/json where a body is sent or §4.2/§4.3 require it. The JWT is
 * kept until five minutes before it expires (24 h, §5.3) and a 401 signs in again once and
 * repeats the call. Network errors, timeouts, 408, 429
 * and 5xx are retried per §7–§8 by sendJson's one retry policy (retry.ts; got's own retry is
 * off), except for add-capture, which is not idempotent and is sent once.
 *
 * Every method takes an optional AbortSignal as its last argument: when it aborts, the call and
 * its retries stop at once with CancelledError (§7 "Cancellation stops retries at once").
 * Every method throws HttpStatusError (with the service's message), NetworkError (UnreachableError
 * when nothing the service understood was sent, including 404/405 on sign-in, §4.2, §4.3 and
 * §4.4; code DEADLINE_CODE, "The capture service answers too slowly", when an answer took longer
 * than its total deadline, sized by what it should carry: http.ts jsonDeadlineMs), ResponseShapeError,
 * RequestNotSentError (signing in failed first) or CancelledError from ./errors.js.
 */
export class CaptureGateway {
  private readonly http: JsonClient;
  /** The same client with no retries, for add-capture (§4.4 is not idempotent). */
  private readonly once: JsonClient;
  private token?: { value: string; expiresAt: number };
  private signingIn?: Promise<string>;
  /** Aborted by abortAll(): what no single caller owns (the shared sign-in) stops with it. */
  private lifetime = new AbortController();
  /** `operation field` pairs already said absent (each is logged once). */
  private readonly saidAbsent = new Set<string>();
  private readonly log?: (message: string) => void;
  /** Opens a watch on each try of a call to the capture gateway (watchCalls). */
  private watch?: () => CallWatch;

  constructor(
    private readonly config: GatewayConfig,
    opts: GatewayOptions = {},
  ) {
    this.http = createJsonGot(opts);
    this.log = opts.log;
    this.once = { ...this.http, retry: { retries: 0, delayMs: () => 0 } };
  }

  /**
   * §4.1: signs in and keeps the JWT. Returns it. Concurrent callers share one sign-in; a caller
   * whose `signal` aborts stops waiting at once (CancelledError) while the sign-in goes on for the others.
   */
  async signIn(signal?: AbortSignal): Promise<string> {
    // A caller already stopped starts no sign-in: one it started and left would fail unheard.
    if (signal?.aborted) throw new CancelledError();
    return untilAborted(this.sharedSignIn(), signal);
  }

  /**
   * Signs in unless a token valid for more than five minutes is held, so that a following call
   * goes out at once. Throws RequestNotSentError when signing in fails, CancelledError on abort.
   */
  async ready(signal?: AbortSignal): Promise<void> {
    await this.tokenForCall(signal);
  }

  /**
   * Whether a token valid for more than five minutes is held, so that a call made now goes out
   * without signing in first (what `ready()` would otherwise wait for). No I/O.
   */
  get signedIn(): boolean {
    return this.token !== undefined && this.token.expiresAt - TOKEN_MARGIN_MS > performance.now();
  }

  /** Stops every call still running (a shared sign-in no caller waits for any more); the client stays usable. */
  abortAll(): void {
    this.lifetime.abort();
    this.lifetime = new AbortController();
  }

  /**
   * Has `open` watch every try of a call to the capture gateway ({base_url}: §4.2–§4.9, add-capture
   * included; not the sign-in service), so its owner can tell a gateway that accepts connections
   * and answers nothing (main/engine/outages/gateway-watch.ts). One watcher at a time: a later one replaces it.
   */
  watchCalls(open: () => CallWatch): void {
    this.watch = open;
  }

  /** {base_url} and {auth_url} as configured, for messages that say where the service was looked for. */
  get addresses(): { baseUrl: string; authUrl: string } {
    return { baseUrl: this.config.baseUrl, authUrl: this.config.authUrl };
  }

  private sharedSignIn(): Promise<string> {
    this.signingIn ??= (async () => {
      try {
        const { token } = await sendJson(
          this.http,
          `${this.config.authUrl}/api/v1/users/signin`,
          { method: 'POST', json: { email: this.config.email, password: this.config.password } },
          signInResponse,
          this.lifetime.signal,
        ).catch(noServiceHere);
        // The token's lifetime is read from the JWT (exp − iat: both wall time, set by the same
        // server clock) and counted down on the monotonic clock from the moment it arrived, so a
        // step of this computer's clock (or one set wrong) neither keeps an expired token nor
        // discards a good one. Without iat, exp against this clock is all there is.
        const { exp, iat } = decodeJwt(token);
        const arrived = performance.now();
        const lifetimeMs =
          exp === undefined
            ? 24 * 3600_000
            : iat !== undefined && exp > iat
              ? (exp - iat) * 1000
              : exp * 1000 - Date.now();
        this.token = { value: token, expiresAt: arrived + lifetimeMs };
        return token;
      } finally {
        this.signingIn = undefined;
      }
    })();
    return this.signingIn;
  }

  private async currentToken(signal?: AbortSignal): Promise<string> {
    if (this.token && this.signedIn) return this.token.value;
    return this.signIn(signal);
  }

  /** The current token, signing in if needed; a failure is a RequestNotSentError (nothing was sent). */
  private async tokenForCall(signal?: AbortSignal): Promise<string> {
    try {
      return await this.currentToken(signal);
    } catch (err) {
      if (err instanceof CancelledError) throw err;
      throw new RequestNotSentError(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /**
   * Sends an authenticated call; on 401 signs in again once and repeats it (§5.3). When `signal`
   * or abortAll() aborts, the call and its retries stop at once with CancelledError. `once` sends
   * it without retries.
   */
  private async call<T>(
    path: string,
    init: OptionsInit & {
      declareJson?: boolean;
      fixedPath?: boolean;
      once?: boolean;
      answerBytes?: number;
      check?: (answer: T, request: FailedRequest) => void;
    },
    schema: z.ZodType<T>,
    callerSignal?: AbortSignal,
  ): Promise<T> {
    const { declareJson, fixedPath, once, answerBytes, check, ...options } = init;
    if (fixedPath)
      return this.call(path, { ...options, declareJson, once, answerBytes, check }, schema, callerSignal).catch(
        noServiceHere,
      );
    // abortAll() stops calls as well as the shared sign-in.
    const signal = callerSignal ? AbortSignal.any([callerSignal, this.lifetime.signal]) : this.lifetime.signal;
    // Declared only where a body goes or the section requires it (§4.2, §4.3): servers built on
    // Fastify and similar answer 400 to a bodiless request that declares JSON.
    const contentType = options.json !== undefined || declareJson ? { 'content-type': 'application/json' } : {};
    const send = (token: string) =>
      sendJson(
        { ...(once ? this.once : this.http), ...(this.watch ? { watch: this.watch } : {}) },
        `${this.config.baseUrl}${path}`,
        {
          ...options,
          headers: {
            authorization: `Bearer ${token}`,
            'x-api-key': this.config.apiKey,
            'x-project-id': this.config.projectId,
            ...contentType,
          },
        },
        schema,
        signal,
        answerBytes,
        check,
      );
    try {
      return await send(await this.tokenForCall(signal));
    } catch (err) {
      if (!(err instanceof HttpStatusError) || err.status !== 401) throw err;
      this.token = undefined;
      return send(await this.tokenForCall(signal));
    }
  }

  /**
   * `schema`, reading an answer of `operation` first to note (once per field) what the interface
   * lists and the answer left out. Tolerated: the schema checks only what this client uses.
   */
  private noting<T>(operation: keyof typeof interfaceFields, schema: z.ZodType<T>): z.ZodType<T> {
    return z.preprocess((raw) => {
      const fresh = absentFields(raw, interfaceFields[operation]).filter(
        (f) => !this.saidAbsent.has(`${operation} ${f}`),
      );
      if (fresh.length > 0 && typeof raw === 'object' && raw !== null) {
        for (const f of fresh) this.saidAbsent.add(`${operation} ${f}`);
        this.log?.(
          `The service's ${operation} answer lacks ${fresh.join(', ')}; not needed by this client, carrying on (said once)`,
        );
      }
      return raw;
    }, schema) as unknown as z.ZodType<T>;
  }

  /** §4.2: asks for the export of the default sheets; the link is emailed. `user` overrides the recipient. */
  async requestExport(user?: string, signal?: AbortSignal): Promise<{ success: boolean; message: string }> {
    const q = new URLSearchParams({ project: this.config.projectId, ...(user ? { user } : {}) });
    return this.call(
      `/progress/api/external-folders/project-folder-with-default-sheet?${q}`,
      { method: 'GET', declareJson: true, fixedPath: true },
      exportResponse,
      signal,
    );
  }

  /** §4.3: the latest update time (ISO 8601 UTC) of the project's default designs, or null when it has none. */
  async latestDefaultDesignUpdate(signal?: AbortSignal): Promise<string | null> {
    const q = new URLSearchParams({ projectId: this.config.projectId });
    const res = await this.call(
      `/progress/api/external-folders/latest-default-design-update-time?${q}`,
      { method: 'GET', declareJson: true, fixedPath: true },
      designUpdateResponse,
      signal,
    );
    return res.data.latestDefaultDesignUpdatedAt;
  }

  /**
   * §4.4: registers captures and returns each one's summary and upload manifest.
   * Not retried: the interface offers no way to tell whether a lost answer registered the capture.
   */
  async addCaptures(captures: CaptureRequest[], signal?: AbortSignal): Promise<AddCaptureResult[]> {
    const res = await this.call(
      '/captures/api/v1/external-captures/add-capture',
      { method: 'POST', json: { captures }, once: true, fixedPath: true },
      this.noting('add-capture', addCaptureResponse),
      signal,
    );
    return res.result;
  }

  /**
   * §4.5: presigned URLs for the parts not yet in storage (empty when the file is complete).
   * `parts` is the most the answer may list (the file's total parts; default 1): with
   * ANSWER_BYTES.perPresignedPart each, it sizes the call's total deadline (http.ts jsonDeadlineMs).
   * `check` judges each answer against what the caller knows of the file and throws when it does
   * not fit (engine/parts/presigned-urls.ts: PresignAnswerError, asked again as the retry table says).
   */
  async presignMissing(
    uploadId: string,
    signal?: AbortSignal,
    parts = 1,
    check?: (answer: PresignResponse, request: FailedRequest) => void,
  ): Promise<PresignResponse> {
    return this.call(
      `/upload-service/uploads/${encodeURIComponent(uploadId)}/parts/presign-missing`,
      { method: 'POST', answerBytes: ANSWER_BYTES.small + parts * ANSWER_BYTES.perPresignedPart, check },
      this.noting('presign-missing', presignResponse),
      signal,
    );
  }

  /**
   * §4.7: reports parts (ascending part numbers); the file is finalized when the last is reported.
   * Returns the answer's `ok`, `status` and `missingParts` (each undefined when absent); isFinalized (schemas.ts) reads them.
   */
  async completeBatch(uploadId: string, parts: ReportedPart[], signal?: AbortSignal): Promise<UploadRecord> {
    const res = await this.call(
      `/upload-service/uploads/${encodeURIComponent(uploadId)}/parts/complete-batch`,
      { method: 'POST', json: { parts }, answerBytes: ANSWER_BYTES.uploadRecord },
      this.noting('complete-batch', uploadRecordResponse),
      signal,
    );
    return { ok: res.ok, status: res.upload?.status, missingParts: res.upload?.missingParts };
  }

  /**
   * §4.8: the capture's upload status (`uploadStatus` `pending`, `uploading` or `complete`, and
   * the file counts), each undefined when the answer did not give it. `captureId` is sent
   * percent-encoded: it is the service's own, and may hold anything.
   */
  async captureUploadStatus(captureId: string, signal?: AbortSignal): Promise<CaptureUploadStatus> {
    return this.call(
      `/captures/api/v1/external-captures/${encodeURIComponent(captureId)}/upload-status`,
      { method: 'GET' },
      captureUploadStatusResponse,
      signal,
    );
  }

  /**
   * §4.9: the upload's status, reconciled against storage when `syncFromS3`.
   * The path is "not shown" in the interface; this client uses `{base_url}/upload-service/uploads/{uploadId}/status`.
   */
  async uploadStatus(uploadId: string, syncFromS3: boolean, signal?: AbortSignal): Promise<UploadRecord> {
    const q = syncFromS3 ? '?syncFromS3=true' : '';
    const res = await this.call(
      `/upload-service/uploads/${encodeURIComponent(uploadId)}/status${q}`,
      { method: 'GET', answerBytes: ANSWER_BYTES.uploadRecord },
      uploadRecordResponse,
      signal,
    );
    return { ok: res.ok, status: res.upload?.status, missingParts: res.upload?.missingParts };
  }
}

/**
 * Rethrows a 404 or 405 to a call whose path the interface fixes (sign-in, §4.2, §4.3, §4.4: no
 * id in it) as UnreachableError: no such service at the configured address, a settings fault
 * shared by every call, never a refusal of one capture. Other errors pass unchanged.
 */
function noServiceHere(err: unknown): never {
  if (err instanceof HttpStatusError && !err.s3Code && (err.status === 404 || err.status === 405)) {
    throw new UnreachableError(
      `the address answers ${err.status} (${err.message}): no such service there; check the address's path`,
      err.request,
      `HTTP_${err.status}`,
    );
  }
  throw err;
}

/** Resolves as `pending` does, or rejects with CancelledError as soon as `signal` aborts. */
function untilAborted<T>(pending: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return pending;
  if (signal.aborted) {
    // `pending` goes on for its other callers, or none: its failure is theirs, never unheard.
    pending.catch(() => {});
    return Promise.reject(new CancelledError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
