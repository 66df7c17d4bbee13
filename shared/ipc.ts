import { z } from 'zod';
import { serviceUrlProblem } from './service-url.js';

/**
 * The one IPC contract between the renderer and the main process (CONVENTIONS.md, "IPC"): every
 * channel with its argument and result, as zod schemas both sides import. The main process parses
 * every argument with these before a handler sees it; results travel in an
 * `{ ok: true, value } | { ok: false, error }` envelope, because a thrown error reaches the
 * renderer with its message only.
 */

/** Every channel name starts with this; anything else is refused. */
export const CHANNEL_PREFIX = 'capture:';

const id = z.number().int().positive();
const iso = z.string().min(1);

/** A structure or design with the friendly name a person chose for it (ids come out of band). */
export const namedDesign = z.object({ id: z.string().min(1), name: z.string().min(1) });
export const namedStructure = z.object({ id: z.string().min(1), name: z.string().min(1), designs: z.array(namedDesign) });
export type NamedStructure = z.infer<typeof namedStructure>;

/** Settings as the renderer sees them: secrets never travel back, only whether they are set. */
export const settingsView = z.object({
  mode: z.enum(['service', 'local']),
  baseUrl: z.string(),
  authUrl: z.string(),
  progressBaseUrl: z.string(),
  projectId: z.string(),
  email: z.string(),
  hasPassword: z.boolean(),
  hasApiKey: z.boolean(),
  concurrency: z.number().int().min(1).max(16),
  /** Upload bandwidth limit in bytes per second for all files together, or null for none. */
  bandwidthBytesPerSecond: z.number().int().positive().nullable(),
  /** A daily timetable of limits (`08:00,512k 19:00,off`, shared/bandwidth.ts) in force instead of the single limit, or null. */
  bandwidthTimetable: z.string().nullable(),
  structures: z.array(namedStructure),
  /** False when the OS offers no encryption for secrets (they are then refused, not stored in clear). */
  encryptionAvailable: z.boolean(),
  configured: z.boolean(),
  /** Whether the local test service can be started here (a checkout of the repository; never the packaged app). */
  localServiceAvailable: z.boolean(),
});
export type SettingsView = z.infer<typeof settingsView>;

/** Settings as the renderer saves them; an empty or missing secret keeps the stored one. */
// A service address keeps its scheme: `host:8080` parses as a URL whose scheme is the host (issue 17 #6).
const serviceUrl = z.string().superRefine((v, ctx) => {
  const problem = serviceUrlProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: `This address cannot be used: ${problem}.` });
});
export const settingsInput = z.object({
  baseUrl: serviceUrl,
  authUrl: serviceUrl,
  progressBaseUrl: serviceUrl.or(z.literal('')),
  projectId: z.string().min(1),
  email: z.string().email(),
  password: z.string().optional(),
  apiKey: z.string().optional(),
  concurrency: z.number().int().min(1).max(16),
  structures: z.array(namedStructure),
});
export type SettingsInput = z.infer<typeof settingsInput>;

/** Metadata read from a recording; see main/media. Timestamps ISO 8601; seconds; pixels. */
export const mediaView = z.object({
  createdAt: z.string().optional(),
  durationSeconds: z.number().optional(),
  frameRate: z.number().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  camera: z.object({ model: z.string().optional(), serialNumber: z.string().optional(), firmware: z.string().optional() }).optional(),
  error: z.string().optional(),
});
export type MediaView = z.infer<typeof mediaView>;

/** A proposed capture from dropped files, before registration. Sizes in bytes. */
export const proposedCapture = z.object({
  key: z.string(),
  kind: z.enum(['dual-lens', 'single-lens', 'video']),
  label: z.string(),
  files: z.array(z.object({ path: z.string(), name: z.string(), size: z.number() })),
  /** The §7 message this capture would be refused with, if any. */
  violation: z.string().optional(),
  /** From the first video: what fills the form. */
  media: mediaView,
  /** Suggested capture time, ISO 8601 with zone. */
  capturedAt: z.string(),
  /** Files already in the queue (same path, size and time): registering again is refused. */
  alreadyQueued: z.boolean(),
  /** What a person should know before registering it (shared/capture-warnings.ts): it is uploaded all the same. */
  warnings: z.array(z.string()).optional(),
});
export type ProposedCapture = z.infer<typeof proposedCapture>;

export const inspectResult = z.object({
  captures: z.array(proposedCapture),
  refused: z.array(z.object({ path: z.string(), reason: z.string() })),
});
export type InspectResult = z.infer<typeof inspectResult>;

/** One capture as the person filled its form. */
export const captureForm = z.object({
  paths: z.array(z.string().min(1)).min(1),
  structure: z.string().min(1),
  design: z.string().optional(),
  type: z.enum(['interior', 'exterior']),
  capturedAt: iso,
  /** The warnings the person saw for it in the registration table: kept with the capture to the finish (issue 18 #3). */
  warnings: z.array(z.string().max(500)).max(20).optional(),
});
export type CaptureForm = z.infer<typeof captureForm>;

/**
 * Where the previous card of this project was registered (the placement most of its captures
 * went to), offered to be carried over explicitly; ids as in §4.4.
 */
export const lastPlacement = z.object({ structure: z.string().min(1), design: z.string().optional(), type: z.enum(['interior', 'exterior']) });
export type LastPlacement = z.infer<typeof lastPlacement>;

const fileState = z.enum(['waiting', 'pending', 'uploading', 'paused', 'completed', 'failed', 'cancelled']);
const captureState = z.enum(['queued', 'registering', 'registration_unknown', 'registered', 'completed', 'failed', 'rejected']);

/**
 * A queued file with its progress. Bytes; bytes per second; seconds. A `pending` file with a
 * `retryAt` (ms since epoch) failed for a passing reason and is tried again by itself then
 * (`attempts` so far); `error` says why. A file with `replacedBy` changed on disk and its recording
 * was added again as that capture (issue 17 #14).
 */
export const queueFile = z.object({
  id,
  captureRow: id,
  fileName: z.string(),
  path: z.string(),
  size: z.number(),
  state: fileState,
  error: z.string().nullable(),
  /** Bytes storage acknowledged (parts whose ETag came back). */
  bytesSent: z.number(),
  /** Bytes of parts on the wire not yet acknowledged (drawn apart, like a buffered bar); absent: 0. */
  bytesInFlight: z.number().optional(),
  partsDone: z.number(),
  partsTotal: z.number(),
  bytesPerSecond: z.number(),
  etaSeconds: z.number().nullable(),
  retryAt: z.number().nullable(),
  attempts: z.number(),
  /** The capture row that replaced this (cancelled) file: its recording changed on disk and was added again. */
  replacedBy: z.number().nullable().optional(),
});
export type QueueFile = z.infer<typeof queueFile>;

/**
 * A capture in the queue; a `queued` one with `retryAt` (ms since epoch) is registered again by
 * itself then. `structure`, `design`, `type` and `capturedAt` (ISO 8601 with zone) are what it is
 * registered with (§4.4), so a refused capture can be corrected and registered again.
 */
export const queueCapture = z.object({
  id,
  label: z.string(),
  state: captureState,
  error: z.string().nullable(),
  retryAt: z.number().nullable(),
  captureId: z.string().nullable(),
  structure: z.string(),
  design: z.string().nullable(),
  type: z.enum(['interior', 'exterior']),
  capturedAt: z.string(),
  /** Warnings kept with it since registration (a missing trailer, a lone or vanished lens, a short recording); absent or empty when none. */
  warnings: z.array(z.string()).optional(),
});
export type QueueCapture = z.infer<typeof queueCapture>;

/**
 * An outage seen by the uploads (main/engine/progress.ts Outage): part requests failing for a
 * passing reason at `storage` or at the `gateway` since `since` (ms since epoch), `cause` in the
 * service's words (shared/causes.ts plainCause gives plain words). Nothing is lost meanwhile.
 */
export const queueOutage = z.object({ where: z.enum(['storage', 'gateway']), since: z.number(), cause: z.string() });
export type QueueOutage = z.infer<typeof queueOutage>;

/**
 * The whole queue in numbers, from one SQL query plus the live bytes of files uploading.
 * Counts of files by what happens next (`queued`: waiting for registration or its turn;
 * `retrying`: waiting for a scheduled retry after a passing failure), `needYou` counts failed
 * files and captures that need a person. Bytes: `bytesTotal` of every file not cancelled,
 * `bytesDone` stored so far of them, `bytesRemaining` still to send of the files that move by
 * themselves (waiting, pending, uploading; paused and failed files are left out, so an ETA from
 * it is honest).
 */
export const queueTotals = z.object({
  files: z.number(),
  captures: z.number(),
  completed: z.number(),
  uploading: z.number(),
  queued: z.number(),
  retrying: z.number(),
  paused: z.number(),
  failed: z.number(),
  cancelled: z.number(),
  needYou: z.number(),
  bytesTotal: z.number(),
  bytesDone: z.number(),
  bytesRemaining: z.number(),
  /** Bytes per second storage acknowledged, a moving average over the last 20 s; 0 when nothing moves. */
  bytesPerSecond: z.number(),
  /** Bytes on the wire not yet acknowledged by storage (not in `bytesDone`); absent: 0. */
  bytesInFlight: z.number().optional(),
  /** Bytes storage had acknowledged and then lost (sent again) since the app started: the only way `bytesDone` goes back; absent: 0. */
  bytesLost: z.number().optional(),
  /** The earliest scheduled retry of a file or capture (ms since epoch), or null/absent when none. */
  nextRetryAt: z.number().nullable().optional(),
  /** Storage or the gateway failing for a passing reason since `since` (ms since epoch), until a part is acknowledged; null/absent when not. */
  outage: queueOutage.nullable().optional(),
  /** Captures in the queue that carry warnings (issue 18 #3): the finish says so, never plain green; absent: 0. */
  capturesWarned: z.number().optional(),
});
export type QueueTotals = z.infer<typeof queueTotals>;

/**
 * A queue-wide hold (main/queue/meta.ts QueueHold): no file starts until `until` (ISO 8601; null:
 * until a person resumes), set `by` a person ("Pause until 07:00") or the bandwidth timetable's
 * pause hours. Apart from each file's own pause: its end resumes no file a person paused.
 */
export const queueHold = z.object({ until: z.string().nullable(), by: z.enum(['person', 'timetable']) });
export type QueueHoldView = z.infer<typeof queueHold>;

/**
 * The queue; `blocked` says why nothing is sent (the service refuses the queue's credentials), or
 * null; `hold` the queue-wide hold in force, or null; `keptAwake` whether the app keeps the
 * computer from sleeping while the queue has work.
 */
export const queueView = z.object({
  captures: z.array(queueCapture),
  files: z.array(queueFile),
  blocked: z.string().nullable(),
  hold: queueHold.nullable(),
  totals: queueTotals,
  keptAwake: z.boolean(),
});
export type QueueView = z.infer<typeof queueView>;

/** One line of the activity log (main/queue/activity.ts): `at` ISO 8601; what happened to which capture or file. */
export const activityView = z.object({
  id,
  at: z.string(),
  captureRow: z.number().nullable(),
  fileId: z.number().nullable(),
  subject: z.string(),
  kind: z.string(),
  message: z.string(),
});
export type ActivityView = z.infer<typeof activityView>;

/** Whether the project's default designs changed since the last export (§4.3). */
export const designStatus = z.object({
  latestDesignUpdate: z.string().nullable(),
  lastExport: z.object({ requestedAt: z.string(), designsUpdatedAt: z.string().nullable() }).nullable(),
  stale: z.boolean(),
});
export type DesignStatus = z.infer<typeof designStatus>;

const target = z.union([z.object({ fileId: id }), z.object({ all: z.literal(true) })]);

const ymd = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date in YYYY-MM-DD form');

/** A progress entry (progress-records-interface.md §2). `date` YYYY-MM-DD. */
export const progressEntryView = z.object({ id: z.string(), date: ymd, status: z.string(), details: z.string() });
export type ProgressEntryView = z.infer<typeof progressEntryView>;

/** An asset category with its stages (§2), as the Assets view needs it. */
export const assetCategoryView = z.object({
  id: z.string(),
  name: z.string(),
  uom: z.string(),
  /** The category's height (§2, in its length unit), or null when not given: an area unit's quantity is length × height. */
  height: z.number().nullable(),
  stages: z.array(z.object({ _id: z.string(), name: z.string(), sequence: z.number(), color: z.string() })),
});
export type AssetCategoryView = z.infer<typeof assetCategoryView>;

/** An external asset (§2): a polyline in plan coordinates and its progress per stage (percentage 0–100, date ISO 8601). */
export const assetView = z.object({
  _id: z.string(),
  points: z.array(z.object({ x: z.number(), y: z.number() })),
  doNotTrack: z.boolean(),
  snapshot: z.string().nullable(),
  stages: z.array(z.object({ _id: z.string(), percentage: z.number(), date: z.string().nullable() })),
});
export type AssetView = z.infer<typeof assetView>;

/**
 * An entry recorded while the progress service could not be reached, waiting to be sent.
 * `queuedAt` ISO 8601; `state` 'refused' with the service's `error` when it answered 400.
 */
export const outboxItemView = z.object({
  id,
  date: ymd,
  status: z.string(),
  details: z.string(),
  queuedAt: iso,
  state: z.enum(['waiting', 'refused']),
  error: z.string().nullable(),
  /** The entry field a refusal's message names (shown beside it in the form), or null. */
  field: z.enum(['date', 'status', 'details']).nullable(),
});
export type OutboxItemView = z.infer<typeof outboxItemView>;

/**
 * How fresh a read of the progress service is: `asOf` when the service gave it (ISO 8601);
 * `offline` true when it could not be reached (no answer or 5xx) and this is the copy kept, with
 * `offlineReason` saying why.
 */
const freshness = { asOf: iso, offline: z.boolean(), offlineReason: z.string().nullable() };

/**
 * Whether the upload service runs with its queue (issue 17 #11): `queueError` says why the queue
 * could not be opened (a newer version, a read-only folder, a full disk, another app holding it)
 * and what to do, or null. The window opens either way and shows it.
 */
export const serviceStatus = z.object({ queueError: z.string().nullable() });
export type ServiceStatus = z.infer<typeof serviceStatus>;

/**
 * A capture of the local queue beside the office's day (issue 20 #6): `captureRow` its queue row;
 * `structureName` the friendly name from the settings (the id when none); `capturedAt` ISO 8601 as
 * registered; `files` not cancelled, `filesUploaded` of them; `uploadedAt` (ISO 8601) once all are.
 */
export const dayCaptureView = z.object({
  captureRow: id,
  label: z.string(),
  structure: z.string(),
  structureName: z.string(),
  state: captureState,
  capturedAt: z.string(),
  files: z.number(),
  filesUploaded: z.number(),
  uploadedAt: z.string().nullable(),
});
export type DayCaptureView = z.infer<typeof dayCaptureView>;

/** Channel → argument schema and result schema. */
export const channels = {
  /** The upload service's status (answered by main/service/worker.ts, not AppCore). */
  'capture:service.status': { args: z.void(), result: serviceStatus },
  'capture:settings.get': { args: z.void(), result: settingsView },
  'capture:settings.save': { args: settingsInput, result: settingsView },
  'capture:settings.useLocalService': { args: z.void(), result: settingsView },
  'capture:files.pick': { args: z.void(), result: z.array(z.string()) },
  'capture:files.inspect': { args: z.array(z.string().min(1)).min(1).max(5000), result: inspectResult },
  /**
   * Checks and queues each form's files as one capture and answers at once with the row ids
   * queued and the paths refused (with reasons); the engine registers the captures (§4.4) in the
   * background, and the queue's rows say "Registering" until each is registered or refused.
   */
  'capture:captures.register': {
    args: z.array(captureForm).min(1),
    result: z.object({ queued: z.array(id), refused: z.array(z.object({ path: z.string(), reason: z.string() })) }),
  },
  /** Where the previous card of the current project went, or null before the first registration. */
  'capture:captures.lastPlacement': { args: z.void(), result: lastPlacement.nullable() },
  'capture:queue.list': { args: z.void(), result: queueView },
  /**
   * Changes the upload limits at once, uploads running, and keeps them for next time: a single
   * limit (bytes per second, at least 8 KiB/s, or null for none), or a daily timetable as text
   * (`08:00,512k 19:00,off`) which then decides the limit. Answers the limit in force now.
   */
  'capture:engine.limits': {
    args: z.object({ bandwidthBytesPerSecond: z.number().int().min(8192).nullable(), timetable: z.string().max(500).nullable().optional() }),
    result: z.object({ bandwidthBytesPerSecond: z.number().int().positive().nullable() }),
  },
  /**
   * Holds the whole queue until a time (ISO 8601): kept in the queue across restarts, nothing
   * starts until then, and files paused one by one stay paused after it; null ends the hold now.
   */
  'capture:queue.pauseUntil': { args: z.object({ until: z.string().datetime({ offset: true }).nullable() }), result: z.void() },
  'capture:queue.pause': { args: target, result: z.void() },
  'capture:queue.resume': { args: target, result: z.void() },
  /** Sends a failed or cancelled file again, or one waiting for its retry time now; `all`: every such file. */
  'capture:queue.retry': { args: target, result: z.void() },
  'capture:queue.remove': { args: z.object({ captureRow: id }), result: z.void() },
  /** One file off this computer's queue (a lens whose recording should not go up); nothing changes at the platform. */
  'capture:queue.removeFile': { args: z.object({ fileId: id }), result: z.void() },
  /** Takes completed captures off the list (this computer's queue only); answers how many. */
  'capture:queue.clearCompleted': { args: z.void(), result: z.object({ captures: z.number() }) },
  /** A refused capture corrected and queued to be registered again (§4.4). */
  'capture:queue.edit': {
    args: z.object({ captureRow: id, structure: z.string().min(1), design: z.string().min(1).optional(), type: z.enum(['interior', 'exterior']), capturedAt: iso }),
    result: z.void(),
  },
  /** The activity log, oldest first: entries at or after `since` (ISO 8601), the newest `limit` (default 1,000). */
  'capture:activity.list': { args: z.object({ since: z.string().optional(), limit: z.number().int().min(1).max(100_000).optional() }), result: z.array(activityView) },
  'capture:queue.resolve': { args: z.object({ captureRow: id, decision: z.enum(['register-again', 'drop']) }), result: z.void() },
  'capture:designs.check': { args: z.void(), result: designStatus },
  'capture:designs.export': { args: z.void(), result: z.object({ message: z.string() }) },
  /** progress-records-interface.md §4: the project's entries (all, or of one date), after sending the outbox, and what still waits there. */
  'capture:progress.list': {
    args: z.object({ date: ymd.optional() }),
    result: z.object({ entries: z.array(progressEntryView), outbox: z.array(outboxItemView), ...freshness }),
  },
  'capture:progress.get': { args: z.object({ id: z.string().min(1).max(100) }), result: progressEntryView },
  /** Records an entry once (a lost answer is looked up before sending again); `queued` when the service cannot be reached. */
  'capture:progress.create': {
    args: z.object({ date: ymd, status: z.enum(['In Progress', 'Completed']), details: z.string().trim().min(1, 'Say what was done').max(5000) }),
    result: z.object({ entry: progressEntryView.nullable(), queued: outboxItemView.nullable() }),
  },
  /** A refused outbox entry corrected (issue 20 #2): waiting again and sent; `entry` when recorded, else the `item` as it is now. */
  'capture:progress.revise': {
    args: z.object({ id, date: ymd, status: z.enum(['In Progress', 'Completed']), details: z.string().trim().min(1, 'Say what was done').max(5000) }),
    result: z.object({ entry: progressEntryView.nullable(), item: outboxItemView.nullable() }),
  },
  /**
   * progress-records-interface.md §4 /v1/users/signin with the account in the settings: whether it
   * signed in, and a sentence saying so or why not ("Invalid credentials" in plain words; issue 20 #3).
   */
  'capture:progress.signin': { args: z.void(), result: z.object({ signedIn: z.boolean(), message: z.string() }) },
  /** The month's entries (YYYY-MM) as CSV (RFC 4180, UTF-8, header row) and the file name to offer it under (issue 20 #7). */
  'capture:progress.report': { args: z.object({ month: z.string().regex(/^\d{4}-\d{2}$/, 'a month in YYYY-MM form') }), result: z.object({ fileName: z.string(), csv: z.string() }) },
  /** The captures in the local queue of the project taken on `date` (YYYY-MM-DD, the site's date), for the office's day view; [] without a queue. */
  'capture:queue.byDay': { args: z.object({ date: ymd }), result: z.array(dayCaptureView) },
  /** Gives up an entry waiting in the outbox (e.g. one the service refused). */
  'capture:progress.discard': { args: z.object({ id }), result: z.boolean() },
  'capture:assets.categories': {
    args: z.void(),
    result: z.object({ categories: z.array(assetCategoryView), structures: z.array(z.object({ id: z.string(), name: z.string() })), ...freshness }),
  },
  'capture:assets.list': { args: z.object({ structure: z.string().min(1), category: z.string().min(1) }), result: z.object({ assets: z.array(assetView), ...freshness }) },
} as const;

export type Channel = keyof typeof channels;
export type ArgsOf<C extends Channel> = z.input<(typeof channels)[C]['args']>;
export type ResultOf<C extends Channel> = z.infer<(typeof channels)[C]['result']>;

/** What every invoke answers. `error` is a message a person can read. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: string };

/** Events main sends to the renderer: payload schemas. */
export const events = {
  /** Live bytes of the files uploading, at most ten a second, with the queue's totals. */
  'capture:event.progress': z.object({
    files: z.array(queueFile.pick({ id: true, bytesSent: true, bytesInFlight: true, partsDone: true, partsTotal: true, bytesPerSecond: true, etaSeconds: true })),
    totals: queueTotals,
  }),
  /**
   * What changed in the queue, as committed: rows to put in place (keyed by id), rows that left,
   * the totals after the change, and the queue-wide hold in force. A person's batch ("Pause all"
   * on 10,000 files) is one such event. The renderer applies it; nothing reloads the whole queue.
   */
  'capture:event.rows': z.object({
    files: z.array(queueFile),
    captures: z.array(queueCapture),
    removed: z.object({ captures: z.array(id), files: z.array(id) }),
    totals: queueTotals,
    blocked: z.string().nullable(),
    hold: queueHold.nullable(),
  }),
  /** The queue was replaced as a whole (another account or service in settings): read it again. */
  'capture:event.queue': z.object({ reason: z.string() }),
  /** The app started or stopped keeping the computer awake for the uploads (a power-save blocker). */
  'capture:event.power': z.object({ keptAwake: z.boolean() }),
  /** The upload service's status changed (it was restarted, or its queue could not be opened). */
  'capture:event.service': serviceStatus,
  'capture:event.notice': z.object({ level: z.enum(['info', 'warning', 'error']), message: z.string() }),
} as const;
export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.infer<(typeof events)[E]>;

type ShortName<C extends string> = C extends `capture:${infer S}` ? S : never;

/** A channel's function on `window.api`: its argument (none for void) and its envelope. */
export type ApiFunction<C extends Channel> = (...args: ArgsOf<C> extends void ? [] : [ArgsOf<C>]) => Promise<Envelope<ResultOf<C>>>;

/**
 * The API the preload exposes as `window.api`: one fixed function per channel, named by the
 * channel without its prefix (`api['queue.pause']({ fileId })`), plus event subscription and the
 * path of a dropped file. Never `ipcRenderer` itself.
 */
export type CaptureApi = { [C in Channel as ShortName<C>]: ApiFunction<C> } & {
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
  /** The path of a dropped file (Electron's webUtils.getPathForFile). */
  getPathForFile(file: File): string;
};

/** The function names of `window.api` for the channels, for the preload and test harness to build it. */
export const apiFunctionNames = (Object.keys(channels) as Channel[]).map((c) => [c, c.slice(CHANNEL_PREFIX.length)] as const);
