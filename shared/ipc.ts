import { z } from 'zod';

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
  structures: z.array(namedStructure),
  /** False when the OS offers no encryption for secrets (they are then refused, not stored in clear). */
  encryptionAvailable: z.boolean(),
  configured: z.boolean(),
});
export type SettingsView = z.infer<typeof settingsView>;

/** Settings as the renderer saves them; an empty or missing secret keeps the stored one. */
export const settingsInput = z.object({
  baseUrl: z.string().url(),
  authUrl: z.string().url(),
  progressBaseUrl: z.string().url().or(z.literal('')),
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
 * (`attempts` so far); `error` says why.
 */
export const queueFile = z.object({
  id,
  captureRow: id,
  fileName: z.string(),
  path: z.string(),
  size: z.number(),
  state: fileState,
  error: z.string().nullable(),
  bytesSent: z.number(),
  partsDone: z.number(),
  partsTotal: z.number(),
  bytesPerSecond: z.number(),
  etaSeconds: z.number().nullable(),
  retryAt: z.number().nullable(),
  attempts: z.number(),
});
export type QueueFile = z.infer<typeof queueFile>;

/** A capture in the queue; a `queued` one with `retryAt` (ms since epoch) is registered again by itself then. */
export const queueCapture = z.object({
  id,
  label: z.string(),
  state: captureState,
  error: z.string().nullable(),
  retryAt: z.number().nullable(),
  captureId: z.string().nullable(),
  structure: z.string(),
});
export type QueueCapture = z.infer<typeof queueCapture>;

/** The queue; `blocked` says why nothing is sent (the service refuses the queue's credentials), or null. */
export const queueView = z.object({ captures: z.array(queueCapture), files: z.array(queueFile), blocked: z.string().nullable() });
export type QueueView = z.infer<typeof queueView>;

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

/** Channel → argument schema and result schema. */
export const channels = {
  'capture:settings.get': { args: z.void(), result: settingsView },
  'capture:settings.save': { args: settingsInput, result: settingsView },
  'capture:settings.useLocalService': { args: z.void(), result: settingsView },
  'capture:files.pick': { args: z.void(), result: z.array(z.string()) },
  'capture:files.inspect': { args: z.array(z.string().min(1)).min(1).max(5000), result: inspectResult },
  'capture:captures.register': {
    args: z.array(captureForm).min(1),
    result: z.object({ queued: z.array(id), refused: z.array(z.object({ path: z.string(), reason: z.string() })) }),
  },
  /** Where the previous card of the current project went, or null before the first registration. */
  'capture:captures.lastPlacement': { args: z.void(), result: lastPlacement.nullable() },
  'capture:queue.list': { args: z.void(), result: queueView },
  /** Changes the upload limits at once, uploads running, and keeps them for next time. */
  'capture:engine.limits': {
    args: z.object({ bandwidthBytesPerSecond: z.number().int().positive().nullable() }),
    result: z.object({ bandwidthBytesPerSecond: z.number().int().positive().nullable() }),
  },
  'capture:queue.pause': { args: target, result: z.void() },
  'capture:queue.resume': { args: target, result: z.void() },
  'capture:queue.retry': { args: target, result: z.void() },
  'capture:queue.remove': { args: z.object({ captureRow: id }), result: z.void() },
  'capture:queue.resolve': { args: z.object({ captureRow: id, decision: z.enum(['register-again', 'drop']) }), result: z.void() },
  'capture:designs.check': { args: z.void(), result: designStatus },
  'capture:designs.export': { args: z.void(), result: z.object({ message: z.string() }) },
  /** progress-records-interface.md §4: the project's entries (all, or of one date). */
  'capture:progress.list': { args: z.object({ date: ymd.optional() }), result: z.array(progressEntryView) },
  'capture:progress.get': { args: z.object({ id: z.string().min(1).max(100) }), result: progressEntryView },
  /** Records an entry once (a lost answer is looked up before sending again). */
  'capture:progress.create': {
    args: z.object({ date: ymd, status: z.enum(['In Progress', 'Completed']), details: z.string().trim().min(1, 'Say what was done').max(5000) }),
    result: progressEntryView,
  },
  'capture:assets.categories': {
    args: z.void(),
    result: z.object({ categories: z.array(assetCategoryView), structures: z.array(z.object({ id: z.string(), name: z.string() })) }),
  },
  'capture:assets.list': { args: z.object({ structure: z.string().min(1), category: z.string().min(1) }), result: z.array(assetView) },
} as const;

export type Channel = keyof typeof channels;
export type ArgsOf<C extends Channel> = z.input<(typeof channels)[C]['args']>;
export type ResultOf<C extends Channel> = z.infer<(typeof channels)[C]['result']>;

/** What every invoke answers. `error` is a message a person can read. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: string };

/** Events main sends to the renderer: payload schemas. */
export const events = {
  'capture:event.progress': z.object({ files: z.array(queueFile.pick({ id: true, bytesSent: true, partsDone: true, partsTotal: true, bytesPerSecond: true, etaSeconds: true })) }),
  'capture:event.queue': z.object({ reason: z.string() }),
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
