import type { IncomingMessage } from 'node:http';
import { z } from 'zod';

/**
 * Deterministic fault injection for the local service.
 *
 * A rule names a target (the storage, the capture gateway, the sign-in service or the progress
 * interface), optionally an operation, a method, a part number and (storage) text of the object
 * key, and what to do to the matching requests: let `skip` of them through, then fire on the next `times` of them (`times: 0` fires
 * on every later match). Rules are tried in the order they were added; the first that matches
 * fires. Settings change behaviour globally: presigned URL lifetime, a storage bandwidth cap,
 * added latency on every request.
 *
 * Operation names: storage uses S3's (`UploadPart`, `CreateMultipartUpload`, `ListParts`,
 * `CompleteMultipartUpload`, `AbortMultipartUpload`, `PutObject`, `GetObject`, `HeadObject`);
 * the gateway uses the last path segment of its endpoints (`add-capture`, `presign-missing`,
 * `complete-batch`, `upload-status`, `status`, `project-folder-with-default-sheet`,
 * `latest-default-design-update-time`); sign-in uses `signin`; the progress interface uses
 * `progress`, `external-asset-categories`, `external-assets` and `signin`.
 */
const faultActionSchema = z.discriminatedUnion('type', [
  /**
   * Answer with this status: S3 XML (`InternalError`, `SlowDown` for 503) on storage, JSON elsewhere.
   * `retryAfter`: the `Retry-After` header sent with it, delay-seconds (`"2"`) or an HTTP-date, as
   * RFC 9110 §10.2.3 allows; none by default (on storage, the `storageRetryAfterSeconds` setting's,
   * on its 429 and 503 only). On storage it goes with this rule's answer whatever its status, as a
   * proxy or load balancer in front of S3 may send it.
   */
  z.object({
    type: z.literal('status'),
    status: z.number().int().min(400).max(599),
    retryAfter: z.string().optional(),
  }),
  /** Storage only: read the body, then answer 400 `RequestTimeout` as S3 does for a stalled upload. */
  z.object({ type: z.literal('requestTimeout') }),
  /** Destroy the connection once this many body bytes arrived (0: before reading any). */
  z.object({ type: z.literal('reset'), afterBytes: z.number().int().min(0).default(0) }),
  /**
   * Storage UploadPart and PutObject: read the whole body, then destroy the connection without
   * storing it or answering: a proxy or NAT that cut the connection after the last byte, before
   * anything reached storage. The client cannot tell it from `dropWhileStoring` (which stores it).
   */
  z.object({ type: z.literal('resetAfterBody') }),
  /** Storage UploadPart only: store the part but answer 200 without an ETag header. */
  z.object({ type: z.literal('noEtag') }),
  /**
   * A slow path for this one request, at `bytesPerSecond`: on the gateway, sign-in and progress
   * the handler does its work and its answer goes out with its status and headers at once and its
   * body at that rate (slices of up to 1 KiB; at 1 byte/s a byte a second: an answer that
   * trickles); on storage the request's body is read at that rate (a slow uplink for one part).
   * It holds for the life of that connection: clearing the rules later does not speed it up, as a
   * slow path does not heal for a connection already on it, so only the client can end it.
   */
  z.object({ type: z.literal('slowBody'), bytesPerSecond: z.number().int().positive() }),
  /**
   * Storage UploadPart: a proxy that buffers whole bodies and forwards them slowly. The body is
   * read at full speed (every byte leaves the client at once), then the part is stored and
   * answered only after its size at `bytesPerSecond` (5 MiB at 64 KiB/s: 80 s), stored even if the
   * client has gone meanwhile, as the proxy goes on delivering it. Clearing the rules does not
   * shorten a wait begun.
   */
  z.object({ type: z.literal('bufferedBody'), bytesPerSecond: z.number().int().positive() }),
  /** Hold the request this long (ms) before handling it. */
  z.object({ type: z.literal('latency'), ms: z.number().int().min(0).max(600_000) }),
  /**
   * A silent link: keep the connection open without reading or answering, until the client gives
   * up (closes or resets it) or the rules are cleared (`DELETE /faults`). Cleared, the link is
   * back: the request goes on as if it had never been held (its body is read, it is answered),
   * as a TCP connection does when a Wi-Fi drop ends within its retransmission time.
   */
  z.object({ type: z.literal('hang') }),
  /**
   * Do the work (register the capture, store the part), then never answer: the connection is
   * closed after `afterMs`. The client's view of "the reply was lost after the request was processed".
   */
  z.object({ type: z.literal('dropResponse'), afterMs: z.number().int().min(0).max(600_000).default(0) }),
  /**
   * Storage UploadPart only: once the whole body arrived, close the connection at once without an
   * answer, and store the part all the same after the `partStoreDelayMs` setting's wait, as real S3
   * does when a connection drops between the last byte and its answer (within one run):
   * for that while, ListParts and presign-missing do not list the part yet.
   */
  z.object({ type: z.literal('dropWhileStoring') }),
  /**
   * Do the work (register the capture, store the part, ...), then answer with this status: a real
   * server's 5xx or 429 after it acted (on the gateway, what the handler wrote is thrown away and
   * a JSON error with this status goes out instead).
   */
  z.object({ type: z.literal('statusAfterActing'), status: z.number().int().min(400).max(599) }),
  /** Answer with an HTML page and this status instead of the interface's JSON or S3's XML: a corporate proxy, a CDN or a captive portal. */
  z.object({ type: z.literal('html'), status: z.number().int().min(200).max(599) }),
  /**
   * Answer with this status and this JSON body instead of the handler's: e.g. a 200 carrying
   * `{ success: false, message }`, as a real service behind a framework that always answers 200
   * does. Nothing is done.
   */
  z.object({ type: z.literal('json'), status: z.number().int().min(200).max(599), body: z.unknown() }),
  /**
   * Gateway, sign-in and progress only: an answer that trickles. The status and headers go at once,
   * then the body one byte every `everyMs`: with `body: 'spaces'` (default) a space each time, for
   * ever, the request itself left undone (JSON allows whitespace before a value, so each byte is a
   * valid start of an answer that never ends); with `body: 'answer'` the handler does its work and
   * its own answer goes a byte at a time (a real 1.7 KB presign answer at a byte a second takes
   * 29 minutes). Ends when the client closes the connection; clearing the rules closes it too.
   */
  z.object({
    type: z.literal('trickle'),
    everyMs: z.number().int().min(1).max(60_000).default(1000),
    body: z.enum(['spaces', 'answer']).default('spaces'),
  }),
  /**
   * Gateway presign-missing (§4.5) only: presign as usual, then answer a part list that does not
   * fit the file: `beyond` adds part 10001 (presigned for that number, which storage refuses),
   * `missing` leaves out the first part listed, `duplicate` lists every part twice, `swap` gives the
   * first two parts listed each other's URL (with one part listed, nothing changes), `zero` numbers
   * the first part listed 0, `fileUrl` gives it a `file:///etc/passwd` URL. What a gateway with a
   * bug in its part arithmetic, or a hostile one, may answer.
   */
  z.object({
    type: z.literal('badParts'),
    mode: z.enum(['beyond', 'missing', 'duplicate', 'swap', 'zero', 'fileUrl']),
  }),
  /**
   * Do the work (finalize the upload, register the capture ...), then answer this status with an
   * empty body: 200 with `content-type: application/json` and nothing in it (a framework whose
   * handler returned nothing), or 204 No Content.
   */
  z.object({ type: z.literal('emptyAfterActing'), status: z.union([z.literal(200), z.literal(204)]) }),
  /**
   * Gateway add-capture (§4.4) only: register the request's captures with ids that hold what an
   * answer may hold and an output must not pass on: each capture id carries ESC[2J, BEL, CR LF,
   * U+009B (a C1 control terminals read as CSI) and U+202E (right-to-left override), each upload id
   * `../../` and a BEL and ESC (sent percent-encoded in later calls' paths, which decode them back).
   * Storage keys are made from the ids with those characters replaced, so storage holds the files
   * as usual.
   */
  z.object({ type: z.literal('hostileIds') }),
  /**
   * Do the work, then answer the handler's JSON without these fields: dotted paths, `*` for every
   * element of an array (`result.*.uploadManifest.*.status`, `upload.percentage`,
   * `parts.*.expiresIn`). The interface's response tables have no "required" column; a real
   * service may leave any of them out (capture-upload-interface.md §2).
   */
  z.object({ type: z.literal('omitFields'), paths: z.array(z.string().min(1)).min(1) }),
]);
export type FaultAction = z.infer<typeof faultActionSchema>;

const faultTargetSchema = z.enum(['storage', 'gateway', 'auth', 'progress']);
/** Which of the local service's listeners a rule applies to. */
export type FaultTarget = z.infer<typeof faultTargetSchema>;

export const faultRuleInputSchema = z.object({
  target: faultTargetSchema,
  operation: z.string().optional(),
  method: z.string().optional(),
  partNumber: z.number().int().positive().optional(),
  /**
   * Storage: fire only on requests whose object key contains this text (a file's name, say), so a
   * test can aim at one file's part when several files' parts are in flight in no fixed order.
   */
  keyContains: z.string().min(1).optional(),
  skip: z.number().int().min(0).default(0),
  times: z.number().int().min(0).default(1),
  action: faultActionSchema,
});
/** A rule as posted to `POST /__admin/faults`. */
export type FaultRuleInput = z.input<typeof faultRuleInputSchema>;

export const faultSettingsSchema = z.object({
  /** Lifetime in seconds of presigned part URLs handed out from now on (default 3600, §8). */
  presignExpiresIn: z.number().int().min(1).max(604_800).optional(),
  /** Cap in bytes per second on all storage request bodies together; null removes it. */
  bandwidthBytesPerSecond: z.number().int().positive().nullable().optional(),
  /** Extra delay in ms before every request of every listener. */
  latencyMs: z.number().int().min(0).max(60_000).optional(),
  /** Lifetime in seconds of JWTs issued from now on (default 86400, §5). */
  tokenTtlSeconds: z
    .number()
    .int()
    .min(1)
    .max(30 * 86_400)
    .optional(),
  /**
   * Storage's server-side encryption of parts from now on, as real S3 answers it: `aws:kms`
   * (SSE-KMS) or `sse-c` (a customer key) give part ETags of 32 hex digits that are not the part's
   * MD5, with `x-amz-server-side-encryption: aws:kms` (and the key id) or
   * `x-amz-server-side-encryption-customer-algorithm: AES256`; null (default) stores parts plain.
   */
  serverSideEncryption: z.enum(['aws:kms', 'sse-c']).nullable().optional(),
  /** Seconds storage advises in `Retry-After` on its 503 SlowDown and 429 answers; null (default) sends none, as S3 does. */
  storageRetryAfterSeconds: z.number().int().min(0).max(3600).nullable().optional(),
  /**
   * Gateway and sign-in: answer 400 to a request without a body that declares `content-type:
   * application/json`, as Fastify and similar servers do. §4.2 and §4.3 require the
   * header on their bodiless GETs, so those two are exempt.
   */
  strictContentType: z.boolean().optional(),
  /**
   * complete-batch refuses (400) a report that leaves a part of the file neither reported in it nor
   * counted before (by a reconciling status read): §4.7 "all parts of the file are sent in one call".
   * Off by default, because §3 describes a partial report moving the file to `uploading`.
   */
  completeBatchAllParts: z.boolean().optional(),
  /**
   * Progress interface: every call but sign-in also needs `authorization: Bearer <token>` with a
   * token from its own sign-in (§4 /v1/users/signin), else 401 `{ status: false, message:
   * 'Unauthorized' }`. progress-records-interface.md §5 leaves the token's use open; a real
   * service may demand it. Off by default: the key alone, as §5 says.
   */
  progressRequiresToken: z.boolean().optional(),
  /**
   * Storage: after a part's last body byte arrived, it takes this long (ms) before it stores the
   * part and answers, as real S3 does its MD5, encryption and replication first; a part whose
   * whole body arrived is stored even if the client reset or closed the connection meanwhile
   * 0 (default): stored at once.
   */
  partStoreDelayMs: z.number().int().min(0).max(120_000).optional(),
  /**
   * Cap in bytes per second on the answers of the gateway and sign-in service (each answer's
   * body, sent in 1 KiB slices): a slow downlink for JSON answers. null (default) removes it.
   */
  jsonBytesPerSecond: z.number().int().positive().nullable().optional(),
  /**
   * Presigned part URLs handed out from now on carry an `X-Amz-Security-Token` query parameter of
   * this many characters, signed with the rest, as URLs signed with STS session credentials do
   * (their token makes a query of several KiB). 0 (default): none.
   */
  presignQueryPadBytes: z.number().int().min(0).max(16_384).optional(),
  /** How the §4.9 status read answers: `ok` (default), or 404 / 405 as a gateway whose real path differs would. */
  statusRead: z.union([z.literal('ok'), z.literal(404), z.literal(405)]).optional(),
  /**
   * Storage behind a proxy that buffers whole request bodies: each UploadPart body is taken at
   * once (the client sees every byte leave at the speed of the local link), then passed on to
   * storage at `bytesPerSecond`, shared by every body in 64 KiB slices (as connections share one
   * slow uplink), and stored and answered only then; a body the proxy holds whole is passed on
   * even if the client has gone meanwhile. The first `afterParts` bodies from when it is set pass
   * at once (a link that was fast and turned slow). null (default): no proxy.
   */
  bufferingProxy: z
    .object({ bytesPerSecond: z.number().int().positive(), afterParts: z.number().int().min(0).default(0) })
    .nullable()
    .optional(),
});
/** Global behaviour settings, as posted to `PUT /__admin/settings`. */
export type FaultSettings = z.infer<typeof faultSettingsSchema>;

/**
 * A request held by a `hang` fault, for tests that measure the client: when it arrived, and when
 * its connection closed (`closedAt`) or the fault was cleared and it went on (`releasedAt`), all
 * ms on this process's monotonic clock (performance.now()). A client's reset of a connection
 * whose body is not being read is seen only once it is read again, so `closedAt` may stay unset
 * for a request the client gave up: the client's own account of it is the one to judge.
 */
export interface HeldRequest {
  target: FaultTarget;
  operation: string;
  partNumber?: number;
  /** Storage: the object key. */
  key?: string;
  at: number;
  closedAt?: number;
  releasedAt?: number;
}

interface ActiveRule extends z.infer<typeof faultRuleInputSchema> {
  id: number;
  seen: number;
  fired: number;
}

/** What a request is, for matching against rules. */
export interface RequestFacts {
  target: FaultTarget;
  operation: string;
  method: string;
  partNumber?: number;
  /** Storage: the object key (matched by a rule's `keyContains`; noted for held requests). */
  key?: string;
}

/** The live rules and settings; one instance per running service. */
export class FaultRegistry {
  private rules: ActiveRule[] = [];
  private nextId = 1;
  settings: Required<
    Omit<
      FaultSettings,
      | 'bandwidthBytesPerSecond'
      | 'serverSideEncryption'
      | 'storageRetryAfterSeconds'
      | 'jsonBytesPerSecond'
      | 'bufferingProxy'
    >
  > & {
    bufferingProxy: { bytesPerSecond: number; afterParts: number } | null;
    bandwidthBytesPerSecond: number | null;
    jsonBytesPerSecond: number | null;
    serverSideEncryption: 'aws:kms' | 'sse-c' | null;
    storageRetryAfterSeconds: number | null;
  } = {
    presignExpiresIn: 3600,
    bandwidthBytesPerSecond: null,
    latencyMs: 0,
    tokenTtlSeconds: 86_400,
    serverSideEncryption: null,
    storageRetryAfterSeconds: null,
    strictContentType: false,
    completeBatchAllParts: false,
    statusRead: 'ok',
    progressRequiresToken: false,
    partStoreDelayMs: 0,
    jsonBytesPerSecond: null,
    presignQueryPadBytes: 0,
    bufferingProxy: null,
  };
  /** The buffering proxy's uplink (`bufferingProxy`), shared by the bodies it passes on. */
  readonly proxyUplink = new Throttle(() => this.settings.bufferingProxy?.bytesPerSecond ?? null);
  /** Part bodies the buffering proxy took since it was set (the first `afterParts` pass at once). */
  proxiedParts = 0;
  /** Shared by every storage connection, so the cap holds for all bodies together. */
  readonly throttle = new Throttle(() => this.settings.bandwidthBytesPerSecond);
  /** Every request a `hang` fault held (the newest 10,000), oldest first. */
  readonly held: HeldRequest[] = [];
  /**
   * Every request of the storage, gateway, sign-in and progress listeners as it was matched
   * against the rules (the newest 10,000), oldest first, whether a rule fired or not: its target,
   * operation, part number (storage UploadPart) and arrival (`at`, ms on this process's monotonic
   * clock, performance.now()). For tests that act at a moment of the client's work ("once
   * add-capture has arrived").
   */
  readonly requests: { target: FaultTarget; operation: string; partNumber?: number; at: number }[] = [];
  private readonly holding = new Set<() => void>();
  private readonly trickling = new Set<() => void>();

  /** Adds a rule (validated; throws ZodError on bad input) and returns its id. */
  add(input: FaultRuleInput): number {
    const rule = faultRuleInputSchema.parse(input);
    const id = this.nextId++;
    this.rules.push({ ...rule, id, seen: 0, fired: 0 });
    return id;
  }

  /**
   * Removes every rule, lets every request held by a `hang` fault go on (the link is back), and
   * ends every answer a `trickle` fault is sending (its connection is closed).
   */
  clear(): void {
    this.rules = [];
    for (const release of [...this.holding]) release();
    for (const stop of [...this.trickling]) stop();
  }

  /** Notes an answer a `trickle` fault is sending: `stop` ends it when the rules are cleared. Returns its own removal. */
  trickle(stop: () => void): () => void {
    this.trickling.add(stop);
    return () => this.trickling.delete(stop);
  }

  /**
   * Holds `req`, hit by a `hang` fault, reading and answering nothing, until the rules are cleared
   * (resolves true: handle it now as if no fault had fired) or its connection closes first (false:
   * the client gave up; nothing more to do). Noted in `held`.
   */
  hold(req: IncomingMessage, facts: RequestFacts): Promise<boolean> {
    const entry: HeldRequest = {
      target: facts.target,
      operation: facts.operation,
      ...(facts.partNumber === undefined ? {} : { partNumber: facts.partNumber }),
      ...(facts.key === undefined ? {} : { key: facts.key }),
      at: performance.now(),
    };
    this.held.push(entry);
    if (this.held.length > 10_000) this.held.splice(0, this.held.length - 10_000);
    return new Promise<boolean>((resolve) => {
      const socket = req.socket;
      const done = (released: boolean) => {
        this.holding.delete(release);
        socket.off('close', closed);
        if (released) entry.releasedAt = performance.now();
        else entry.closedAt = performance.now();
        resolve(released);
      };
      const release = () => done(true);
      const closed = () => done(false);
      if (socket.destroyed) return done(false);
      this.holding.add(release);
      socket.once('close', closed);
    });
  }

  /** The rules with their counters, for the admin view. */
  list(): readonly ActiveRule[] {
    return this.rules;
  }

  /** Merges new settings (validated; throws ZodError). */
  update(input: FaultSettings): void {
    const s = faultSettingsSchema.parse(input);
    if (s.presignExpiresIn !== undefined) this.settings.presignExpiresIn = s.presignExpiresIn;
    if (
      s.bandwidthBytesPerSecond !== undefined &&
      s.bandwidthBytesPerSecond !== this.settings.bandwidthBytesPerSecond
    ) {
      this.settings.bandwidthBytesPerSecond = s.bandwidthBytesPerSecond;
      // The link changed: bodies held back under the old cap go on under the new one at once.
      this.throttle.changed();
    }
    if (s.latencyMs !== undefined) this.settings.latencyMs = s.latencyMs;
    if (s.tokenTtlSeconds !== undefined) this.settings.tokenTtlSeconds = s.tokenTtlSeconds;
    if (s.serverSideEncryption !== undefined) this.settings.serverSideEncryption = s.serverSideEncryption;
    if (s.storageRetryAfterSeconds !== undefined) this.settings.storageRetryAfterSeconds = s.storageRetryAfterSeconds;
    if (s.strictContentType !== undefined) this.settings.strictContentType = s.strictContentType;
    if (s.completeBatchAllParts !== undefined) this.settings.completeBatchAllParts = s.completeBatchAllParts;
    if (s.statusRead !== undefined) this.settings.statusRead = s.statusRead;
    if (s.partStoreDelayMs !== undefined) this.settings.partStoreDelayMs = s.partStoreDelayMs;
    if (s.progressRequiresToken !== undefined) this.settings.progressRequiresToken = s.progressRequiresToken;
    if (s.jsonBytesPerSecond !== undefined) this.settings.jsonBytesPerSecond = s.jsonBytesPerSecond;
    if (s.presignQueryPadBytes !== undefined) this.settings.presignQueryPadBytes = s.presignQueryPadBytes;
    if (s.bufferingProxy !== undefined) {
      this.settings.bufferingProxy = s.bufferingProxy;
      this.proxiedParts = 0;
      this.proxyUplink.changed();
    }
  }

  /** The action to apply to this request, if a rule fires for it; counts the match either way, and notes the request in `requests`. */
  take(req: RequestFacts): FaultAction | undefined {
    this.requests.push({
      target: req.target,
      operation: req.operation,
      ...(req.partNumber === undefined ? {} : { partNumber: req.partNumber }),
      at: performance.now(),
    });
    if (this.requests.length > 10_000) this.requests.splice(0, this.requests.length - 10_000);
    for (const rule of this.rules) {
      if (rule.target !== req.target) continue;
      if (rule.operation && rule.operation !== req.operation) continue;
      if (rule.method && rule.method.toUpperCase() !== req.method) continue;
      if (rule.partNumber !== undefined && rule.partNumber !== req.partNumber) continue;
      if (rule.keyContains !== undefined && !req.key?.includes(rule.keyContains)) continue;
      rule.seen++;
      if (rule.seen <= rule.skip) continue;
      if (rule.times !== 0 && rule.fired >= rule.times) continue;
      rule.fired++;
      return rule.action;
    }
    return undefined;
  }
}

/**
 * A token bucket shared by all connections: `consume(n)` resolves once n more bytes fit under the
 * rate (bytes per second) the getter returns now. When the cap changes or is lifted (`changed()`),
 * every wait in progress ends at once and the bucket starts over under the new rate, as a link
 * that got faster carries at once what was waiting: a wait computed under the old cap would go
 * on holding bodies back (minutes at a few KiB/s) after the cap was cleared.
 */
class Throttle {
  private next = 0;
  private readonly waiting = new Set<() => void>();
  constructor(private readonly rate: () => number | null) {}

  async consume(bytes: number): Promise<void> {
    const rate = this.rate();
    if (!rate) return;
    const now = performance.now();
    this.next = Math.max(this.next, now) + (bytes / rate) * 1000;
    const delay = this.next - now;
    if (delay <= 1) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, delay);
      this.waiting.add(done);
    });
  }

  /** The cap changed or was lifted: waits in progress end now, and the bucket starts over. */
  changed(): void {
    this.next = 0;
    for (const done of [...this.waiting]) done();
  }
}
