import type { JsonClient } from './http.js';
import { z } from 'zod';
import type { FailedRequest, RetryPolicy } from './errors.js';
import { HttpStatusError, ResponseShapeError, describeRequest } from './errors.js';
import { createJsonGot, sendJson } from './http.js';

// progress-records-interface.md: its own sign-in, progress entries, external asset categories and
// external assets. Every response is validated; fields the document gives are required, the
// others are let through.

const ymd = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date in YYYY-MM-DD form');

/** §2 Progress. `date` YYYY-MM-DD; `status` "In Progress" or "Completed" (others: not shown, so any string is read). */
const progressEntry = z
  .object({ id: z.string(), projectId: z.string(), date: ymd, status: z.string(), details: z.string() })
  .passthrough();
export type ProgressEntry = z.infer<typeof progressEntry>;

/** §2 Stage of an ExternalAssetCategory. */
const assetStage = z
  .object({
    _id: z.string(),
    name: z.string(),
    sequence: z.number(),
    color: z.string(),
    uom: z.string().optional(),
    measurement: z.string().optional(),
  })
  .passthrough();

/** §2 ExternalAssetCategory (the fields this client uses are required). */
const assetCategory = z
  .object({
    _id: z.string(),
    id: z.string().optional(),
    name: z.string(),
    project: z.string(),
    uom: z.string(),
    height: z.number().optional(),
    stages: z.array(assetStage),
  })
  .passthrough();
export type AssetCategory = z.infer<typeof assetCategory>;

/**
 * §2 ExternalAsset `points`: an array of `{ x: number, y: number }` in plan coordinates, each a
 * finite number. Checked in one loop rather than one zod object per point: a floor of 2,000
 * polylines of 100 points is 200,000 of them, and a schema per point cost about as much again as
 * the rest of the answer (docs/decisions/0032-assets-answer-packed.md). The points are passed on as
 * the service gave them (any other field of a point is left for the packing to drop).
 */
const planPoints = z.array(z.unknown()).superRefine((list, ctx) => {
  for (let i = 0; i < list.length; i++) {
    const p = list[i] as { x?: unknown; y?: unknown } | null;
    if (typeof p !== 'object' || p === null || !Number.isFinite(p.x) || !Number.isFinite(p.y)) {
      ctx.addIssue({ code: 'custom', path: [i], message: 'a point { x: number, y: number }' });
      return;
    }
  }
}) as unknown as z.ZodType<{ x: number; y: number }[]>;

/** §2 ExternalAsset: a polyline (`points`, plan coordinates) and how far it got in each stage (percentage 0–100, date ISO 8601). */
const externalAsset = z
  .object({
    _id: z.string(),
    category: z.string(),
    shape: z.string(),
    points: planPoints,
    properties: z.object({ snapshotDate: z.string().optional() }).passthrough().optional(),
    snapshot: z.string().optional(),
    doNotTrack: z.boolean().optional(),
    stages: z.array(z.object({ _id: z.string(), percentage: z.number(), date: z.string().optional() })),
  })
  .passthrough();
export type ExternalAsset = z.infer<typeof externalAsset>;

const signInResponse = z.object({
  success: z.boolean(),
  result: z
    .object({ _id: z.string(), email: z.string(), token: z.string().min(1), refreshToken: z.string().optional() })
    .passthrough(),
});

/** The tokens of §4 sign-in (§2 Sign-in response `token`, `refreshToken`): secrets, never logged. */
export interface ProgressTokens {
  token: string;
  /** Kept with the token; §5 gives no call that uses it, so it is only kept ('' when not given). */
  refreshToken: string;
}

/**
 * Where a client keeps its sign-in tokens between calls and runs: main/records/progress-tokens.ts
 * seals them like the other secrets. `set(undefined)` forgets them.
 */
export interface TokenKeeper {
  get(): ProgressTokens | undefined;
  set(tokens: ProgressTokens | undefined): void;
}

/**
 * The progress service refused its own sign-in (§4 /v1/users/signin; §7: "Invalid credentials"
 * for a wrong account): `message` is the service's, `cause` its HttpStatusError or
 * ProgressRefusedError. Thrown where a call answered 401 and signing in did not help.
 */
export class ProgressSignInError extends Error {
  override readonly name = 'ProgressSignInError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}
const listOf = <T extends z.ZodTypeAny>(item: T) => z.object({ success: z.boolean(), result: z.array(item) });

/**
 * An answer that says it failed (`success: false` or `status: false`, §7's error body) whatever its
 * HTTP status, most often a 200 or 201. `message` is the service's own; nothing was
 * done, so it is never sent again. Error-status answers stay HttpStatusError.
 */
export class ProgressRefusedError extends Error {
  override readonly name = 'ProgressRefusedError';
  constructor(
    message: string,
    readonly request: FailedRequest,
  ) {
    super(message);
  }
}

/** The failure an answer body declares (`success: false` or `status: false`): its message, or a sentence when it has none. */
function declaredFailure(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  if (b.success !== false && b.status !== false) return undefined;
  return typeof b.message === 'string' && b.message.trim()
    ? b.message
    : 'The service answered that the request failed, without saying why';
}

/** What an answer of the progress interface may carry at most (bytes), to size its total deadline (http.ts jsonDeadlineMs). */
const PROGRESS_ANSWER_BYTES = 1024 * 1024;

/**
 * sendJson for this interface: the body is first read for a declared failure (ProgressRefusedError),
 * then checked against `schema` (ResponseShapeError). Other errors as sendJson.
 */
async function sendProgress<T>(
  client: JsonClient,
  url: string,
  init: Parameters<typeof sendJson>[2],
  schema: z.ZodType<T>,
  signal?: AbortSignal,
): Promise<T> {
  const method = (init.method ?? 'GET').toUpperCase();
  // A project's asset lists run to hundreds of records: a MiB is what such an answer may carry (its deadline, http.ts).
  const body = await sendJson(client, url, init, z.unknown(), signal, PROGRESS_ANSWER_BYTES);
  const failure = declaredFailure(body);
  if (failure !== undefined) throw new ProgressRefusedError(failure, describeRequest(method, url));
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ResponseShapeError(
      `${method} ${new URL(url).pathname} answered an unexpected shape: ${issue.path.join('.') || '(body)'} ${issue.message}`,
      describeRequest(method, url),
    );
  }
  return parsed.data;
}

/** Where the progress interface is and whose it is. */
export interface ProgressRecordsConfig {
  /** {progress_base_url}, no trailing slash. */
  baseUrl: string;
  apiKey: string;
  projectId: string;
  email: string;
  password: string;
}

/** A progress entry to record (§4 POST /progress): `date` YYYY-MM-DD. */
export interface NewProgressEntry {
  date: string;
  status: string;
  details: string;
}

/**
 * Whether `p` has the whole content of `entry` (§4 POST /progress body: date, status, details, to
 * the character; the project is the client's): all the service keeps of an entry but its id (§2),
 * so all a lost answer can be found by (docs/decisions/0027-progress-lost-answer-match.md).
 */
export function sameEntry(p: ProgressEntry, entry: NewProgressEntry): boolean {
  return p.date === entry.date && p.status === entry.status && p.details === entry.details;
}

/**
 * The client of progress-records-interface.md (§4), with got and zod like the gateway client.
 * Reads are retried by sendJson's one policy (retry.ts) as capture-upload-interface.md §7–§8 recommend (network errors, timeouts,
 * 5xx). Creating an entry is not idempotent, so it is sent once: when its answer is lost, the
 * entries of that date are read and one of the same content that was not there before the send
 * (`sameEntry`, not among the caller's `before` ids) is taken as the answer; only when none is
 * there is it sent again (once). Errors: HttpStatusError with the service's own
 * `message` (§7: `{ status: false, message }`), ProgressRefusedError for a 2xx that says it failed,
 * NetworkError, ResponseShapeError; see `explain`.
 */
export class ProgressRecordsClient {
  private readonly reads: JsonClient;
  private readonly once: JsonClient;

  private readonly tokens: TokenKeeper;

  /** `tokens`: where sign-in tokens are kept (default: in this client only). */
  /** The project whose entries this client reads and records (§2 projectId). */
  get projectId(): string {
    return this.config.projectId;
  }

  constructor(
    private readonly config: ProgressRecordsConfig,
    opts: { retry?: RetryPolicy; timeoutMs?: number; tokens?: TokenKeeper } = {},
  ) {
    const service = 'The progress service';
    this.reads = createJsonGot({ retry: opts.retry, timeoutMs: opts.timeoutMs, service });
    this.once = createJsonGot({ retry: { retries: 0, delayMs: () => 0 }, timeoutMs: opts.timeoutMs, service });
    let own: ProgressTokens | undefined;
    this.tokens = opts.tokens ?? { get: () => own, set: (t) => (own = t) };
  }

  /** x-api-key always (§5.1), and the sign-in token as a bearer token once there is one. */
  private headers(): Record<string, string> {
    const token = this.tokens.get()?.token;
    return { 'x-api-key': this.config.apiKey, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  }

  /**
   * Runs a call; when it answers 401 and an account is set, signs in (§4) and runs it once more
   * with the new token. §5 leaves the token's use open, so the key alone is tried first and a
   * service that takes it never sees a sign-in. A 401 again is the key refused (thrown as it is).
   */
  private async authorized<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof HttpStatusError && err.status === 401) || !this.config.email) throw err;
      this.tokens.set(undefined); // a token it no longer takes is not sent again
      try {
        await this.signIn(signal);
      } catch (signInErr) {
        if (
          (signInErr instanceof HttpStatusError && signInErr.status < 500) ||
          signInErr instanceof ProgressRefusedError
        ) {
          throw new ProgressSignInError(signInErr.message, { cause: signInErr });
        }
        throw signInErr;
      }
      return call();
    }
  }

  /**
   * §4 POST /v1/users/signin (201), without the key (§5.2). Keeps the token and refresh token
   * (see TokenKeeper) and returns the user's id and email. Throws HttpStatusError "Invalid
   * credentials" (401), or ProgressRefusedError for a 2xx that says it failed, for a wrong account.
   */
  async signIn(signal?: AbortSignal): Promise<{ id: string; email: string }> {
    const res = await sendProgress(
      this.once,
      `${this.config.baseUrl}/v1/users/signin`,
      { method: 'POST', json: { email: this.config.email, password: this.config.password } },
      signInResponse,
      signal,
    );
    this.tokens.set({ token: res.result.token, refreshToken: res.result.refreshToken ?? '' });
    return { id: res.result._id, email: res.result.email };
  }

  /** §4 GET /progress?projectId[&date]: the project's entries, optionally of one date (YYYY-MM-DD). */
  listProgress(date?: string, signal?: AbortSignal): Promise<ProgressEntry[]> {
    const q = new URLSearchParams({ projectId: this.config.projectId, ...(date ? { date } : {}) });
    return this.authorized(
      () =>
        sendProgress(
          this.reads,
          `${this.config.baseUrl}/progress?${q}`,
          { headers: this.headers() },
          z.array(progressEntry),
          signal,
        ),
      signal,
    );
  }

  /** §4 GET /progress/{id}. Throws HttpStatusError 404 when there is no such entry. */
  getProgress(id: string, signal?: AbortSignal): Promise<ProgressEntry> {
    return this.authorized(
      () =>
        sendProgress(
          this.reads,
          `${this.config.baseUrl}/progress/${encodeURIComponent(id)}`,
          { headers: this.headers() },
          progressEntry,
          signal,
        ),
      signal,
    );
  }

  /**
   * §4 POST /progress (201): records an entry, never twice silently (see the class comment).
   * `before`: the ids of the entries of the same content on the service before this entry's
   * first send (read by the caller from GET /progress of its date); none of them is ever taken as
   * this entry's lost answer. Throws HttpStatusError 400 with the service's message for a refused entry.
   */
  async createProgress(
    entry: NewProgressEntry,
    before: readonly string[],
    signal?: AbortSignal,
  ): Promise<ProgressEntry> {
    // A 401 recorded nothing, so signing in and sending again cannot double the entry.
    const send = () =>
      this.authorized(
        () =>
          sendProgress(
            this.once,
            `${this.config.baseUrl}/progress`,
            { method: 'POST', headers: this.headers(), json: { projectId: this.config.projectId, ...entry } },
            progressEntry,
            signal,
          ),
        signal,
      );
    try {
      return await send();
    } catch (err) {
      // Refused: nothing was recorded.
      if (
        (err instanceof HttpStatusError && err.status < 500) ||
        err instanceof ProgressRefusedError ||
        err instanceof ProgressSignInError
      )
        throw err;
      // The answer may have been lost after the entry was recorded: look before sending again.
      const same = (await this.listProgress(entry.date, signal)).find(
        (p) => sameEntry(p, entry) && !before.includes(p.id),
      );
      if (same) return same;
      return send();
    }
  }

  /** §4 GET /api/external-asset-categories?project: the project's categories with their stages. */
  async categories(signal?: AbortSignal): Promise<AssetCategory[]> {
    const q = new URLSearchParams({ project: this.config.projectId });
    return (
      await this.authorized(
        () =>
          sendProgress(
            this.reads,
            `${this.config.baseUrl}/api/external-asset-categories?${q}`,
            { headers: this.headers() },
            listOf(assetCategory),
            signal,
          ),
        signal,
      )
    ).result;
  }

  /** §4 GET /api/external-assets?structure&category (category by name or id). */
  async assets(structure: string, category: string, signal?: AbortSignal): Promise<ExternalAsset[]> {
    const q = new URLSearchParams({ structure, category });
    return (
      await this.authorized(
        () =>
          sendProgress(
            this.reads,
            `${this.config.baseUrl}/api/external-assets?${q}`,
            { headers: this.headers() },
            listOf(externalAsset),
            signal,
          ),
        signal,
      )
    ).result;
  }
}

/**
 * Where the person corrects the progress settings, said in `explain`'s sentences: the desktop
 * app's Settings, or the command line's variables and flags.
 */
export type SettingsPlace = 'app' | 'cli';

const WHERE = {
  app: {
    account: 'correct them in Settings',
    key: 'check them in Settings',
    address: 'check the progress address in Settings',
    discard: 'discard the entry',
  },
  cli: {
    account: 'correct CAPTURE_EMAIL and CAPTURE_PASSWORD (or --email, --password)',
    key: 'check CAPTURE_API_KEY, CAPTURE_PROJECT_ID and the account (or --api-key, --project-id, --email, --password)',
    address: 'check CAPTURE_PROGRESS_URL (or --progress-url)',
    discard: 'give the entry up with `capture-uploader progress drop ID`',
  },
} as const;

/**
 * A progress-interface error as a person reads it, one sentence with what to do, by §7's
 * statuses, with the service's own message kept: 400, 403, 404, 409, 422 and other refusals of
 * what was sent, 401 the account or API key, 429 the service asking to wait, 5xx the service
 * failing; a refused sign-in whose message says the account is locked says so (a new password
 * would not help); an answer of a shape §4 does not give, the address to check. `where` names the
 * place of the settings (default the app's). `about` is what was refused: a read or a call answered
 * at once (`'call'`, the default), or an entry of the outbox (`'outbox entry'`), which alone can be
 * given up, so only its 403 offers to discard it. Answers undefined for an error that is not an
 * answer of the service (`reasonOf` describes those). Never throws.
 */
export function explain(
  err: unknown,
  where: SettingsPlace = 'app',
  about: 'call' | 'outbox entry' = 'call',
): string | undefined {
  const at = WHERE[where];
  if (err instanceof ProgressSignInError) {
    if (/\block(ed)?\b/i.test(err.message))
      return `The progress service says the account is locked (${err.message}): ask the project's administrator to unlock it, then try again.`;
    return `The progress service did not accept the email and password (${err.message}): ${at.account}.`;
  }
  if (err instanceof ProgressRefusedError)
    return `The progress service refused the request: ${err.message}. Correct it and try again.`;
  if (err instanceof ResponseShapeError) {
    // sendProgress's message: "METHOD /path answered an unexpected shape: field why".
    const m = /^(\S+ \S+) answered an unexpected shape: (\S+)/.exec(err.message);
    const what = m ? `${m[1]} in a form this app does not read (${m[2]})` : 'in a form this app does not read';
    return `The progress service answered ${what}: ${at.address}; if it is right, the service may have changed, so tell support.`;
  }
  if (!(err instanceof HttpStatusError)) return undefined;
  if (err.status === 401) return `The progress service refuses the account or API key (${err.message}): ${at.key}.`;
  if (err.status === 403)
    return `The progress service does not allow this (${err.message}): ask an administrator of the project for access${about === 'outbox entry' ? `, or ${at.discard}` : ''}.`;
  if (err.status === 404) return `Not found at the progress service: ${err.message}.`;
  if (err.status === 429) return `The progress service asks to wait (${err.message}); it is tried again in a moment.`;
  if (err.status >= 400 && err.status < 500)
    return `The progress service refused the request: ${err.message}. Correct it and try again.`;
  if (err.status >= 500) return `The progress service failed (${err.message}); try again in a moment.`;
  return undefined;
}
