import { z } from 'zod';
import { id, iso, ymd } from './ipc/common.js';
import { loginStartView, settingsInput, settingsView, updateFeedView } from './ipc/settings.js';
import { captureForm, inspectResult, lastPlacement } from './ipc/upload.js';
import { activityView, designStatus, queueCapture, queueFile, queueHold, queueTotals, queueView } from './ipc/queue.js';
import { assetCategoryView, dayCaptureView, outboxItemView, packedAssets, progressEntryView } from './ipc/office.js';
import { cardChannels, cardEvents } from './ipc/card.js';
import { thumbnailChannels } from './ipc/thumbnails.js';
import { planChannels, planEvents } from './ipc/plan.js';

/**
 * The one IPC contract between the renderer and the main process (CONVENTIONS.md, "IPC"): every
 * channel with its argument and result, as zod schemas both sides import. The main process parses
 * every argument with these before a handler sees it; results travel in an
 * `{ ok: true, value } | { ok: false, error }` envelope, because a thrown error reaches the
 * renderer with its message only.
 */

/** Every channel name starts with this; anything else is refused. */
export const CHANNEL_PREFIX = 'capture:';

// The schemas of each screen live in shared/ipc/ and are re-exported here, so every process keeps
// importing `shared/ipc.js`.
export * from './ipc/settings.js';
export * from './ipc/upload.js';
export * from './ipc/queue.js';
export * from './ipc/office.js';
export * from './ipc/card.js';
export * from './ipc/thumbnails.js';
export * from './ipc/plan.js';
export type { PlanView } from './capture-plan.js';

const target = z.union([z.object({ fileId: id }), z.object({ all: z.literal(true) })]);

/**
 * How fresh a read of the progress service is: `asOf` when the service gave it (ISO 8601);
 * `offline` true when it could not be reached (no answer or 5xx) and this is the copy kept, with
 * `offlineReason` saying why.
 */
const freshness = { asOf: iso, offline: z.boolean(), offlineReason: z.string().nullable() };

/**
 * Whether the upload service runs with its queue: `queueError` says why the queue
 * could not be opened (a newer version, a read-only folder, a full disk, another app holding it)
 * and what to do, or null. The window opens either way and shows it.
 */
const serviceStatus = z.object({ queueError: z.string().nullable() });
export type ServiceStatus = z.infer<typeof serviceStatus>;

/** Channel → argument schema and result schema. */
export const channels = {
  /** The upload service's status (answered by main/service/worker.ts, not AppCore). */
  'capture:service.status': { args: z.void(), result: serviceStatus },
  'capture:settings.get': { args: z.void(), result: settingsView },
  'capture:settings.save': { args: settingsInput, result: settingsView },
  'capture:settings.useLocalService': { args: z.void(), result: settingsView },
  /** Start at login, minimized to the tray: answered by the main process, which applies it (SHELL_CHANNELS). */
  'capture:loginStart.get': { args: z.void(), result: loginStartView },
  /** The person's choice: on, off, or null to go back to the default (on while the queue holds unfinished work); answers the view after applying it. */
  'capture:loginStart.set': { args: z.object({ enabled: z.boolean().nullable() }), result: loginStartView },
  /** The update feed's address and where updates stand: answered by the main process, which applies a change at once (SHELL_CHANNELS). */
  'capture:updates.get': { args: z.void(), result: updateFeedView },
  /** A new feed address ('' turns updates off); refused with the fix when it is not https (or http to this computer). */
  'capture:updates.set': { args: z.object({ feedUrl: z.string().max(2000) }), result: updateFeedView },
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
    args: z.object({
      bandwidthBytesPerSecond: z.number().int().min(8192).nullable(),
      timetable: z.string().max(500).nullable().optional(),
    }),
    result: z.object({ bandwidthBytesPerSecond: z.number().int().positive().nullable() }),
  },
  /**
   * Holds the whole queue until a time (ISO 8601): kept in the queue across restarts, nothing
   * starts until then, and files paused one by one stay paused after it; null ends the hold now.
   */
  'capture:queue.pauseUntil': {
    args: z.object({ until: z.string().datetime({ offset: true }).nullable() }),
    result: z.void(),
  },
  'capture:queue.pause': { args: target, result: z.void() },
  'capture:queue.resume': { args: target, result: z.void() },
  /** Sends a failed or cancelled file again, or one waiting for its retry time now; `all`: every such file. */
  'capture:queue.retry': { args: target, result: z.void() },
  'capture:queue.remove': { args: z.object({ captureRow: id }), result: z.void() },
  /** A capture moved to the front of the queue (`front`: its uploads go first, the last one moved first) or back to its place by age. */
  'capture:queue.front': { args: z.object({ captureRow: id, front: z.boolean() }), result: z.void() },
  /** One file off this computer's queue (a lens whose recording should not go up); nothing changes at the platform. */
  'capture:queue.removeFile': { args: z.object({ fileId: id }), result: z.void() },
  /** Takes completed captures off the list (this computer's queue only); answers how many. */
  'capture:queue.clearCompleted': { args: z.void(), result: z.object({ captures: z.number() }) },
  /** A refused capture corrected and queued to be registered again (§4.4). */
  'capture:queue.edit': {
    args: z.object({
      captureRow: id,
      structure: z.string().min(1),
      design: z.string().min(1).optional(),
      type: z.enum(['interior', 'exterior']),
      capturedAt: iso,
    }),
    result: z.void(),
  },
  /** The activity log, oldest first: entries at or after `since` (ISO 8601), the newest `limit` (default 1,000). */
  'capture:activity.list': {
    args: z.object({ since: z.string().optional(), limit: z.number().int().min(1).max(100_000).optional() }),
    result: z.array(activityView),
  },
  'capture:queue.resolve': {
    args: z.object({ captureRow: id, decision: z.enum(['register-again', 'drop']) }),
    result: z.void(),
  },
  'capture:designs.check': { args: z.void(), result: designStatus },
  'capture:designs.export': { args: z.void(), result: z.object({ message: z.string() }) },
  /** progress-records-interface.md §4: the project's entries (all, or of one date), after sending the outbox, and what still waits there. */
  'capture:progress.list': {
    args: z.object({ date: ymd.optional() }),
    result: z.object({
      entries: z.array(progressEntryView),
      project: z.string(),
      /** The project's name from the settings, '' when none was given (neither interface gives one). */
      projectName: z.string(),
      outbox: z.array(outboxItemView),
      ...freshness,
    }),
  },
  'capture:progress.get': { args: z.object({ id: z.string().min(1).max(100) }), result: progressEntryView },
  /** Records an entry once (a lost answer is looked up before sending again); `queued` when the service cannot be reached. */
  'capture:progress.create': {
    args: z.object({
      date: ymd,
      status: z.enum(['In Progress', 'Completed']),
      details: z.string().trim().min(1, 'Say what was done').max(5000),
    }),
    result: z.object({ entry: progressEntryView.nullable(), queued: outboxItemView.nullable() }),
  },
  /** A refused outbox entry corrected: waiting again and sent; `entry` when recorded, else the `item` as it is now. */
  'capture:progress.revise': {
    args: z.object({
      id,
      date: ymd,
      status: z.enum(['In Progress', 'Completed']),
      details: z.string().trim().min(1, 'Say what was done').max(5000),
    }),
    result: z.object({ entry: progressEntryView.nullable(), item: outboxItemView.nullable() }),
  },
  /**
   * progress-records-interface.md §4 /v1/users/signin with the account in the settings: whether it
   * signed in, and a sentence saying so or why not ("Invalid credentials" in plain words).
   */
  'capture:progress.signin': { args: z.void(), result: z.object({ signedIn: z.boolean(), message: z.string() }) },
  /** The month's entries (YYYY-MM) as CSV (RFC 4180, UTF-8, header row) and the file name to offer it under. */
  'capture:progress.report': {
    args: z.object({ month: z.string().regex(/^\d{4}-\d{2}$/, 'a month in YYYY-MM form') }),
    result: z.object({ fileName: z.string(), csv: z.string() }),
  },
  /** The captures in the local queue of the project taken on `date` (YYYY-MM-DD, the site's date), for the office's day view; [] without a queue. */
  'capture:queue.byDay': { args: z.object({ date: ymd }), result: z.array(dayCaptureView) },
  /** Gives up an entry waiting in the outbox (e.g. one the service refused). */
  'capture:progress.discard': { args: z.object({ id }), result: z.boolean() },
  'capture:assets.categories': {
    args: z.void(),
    result: z.object({
      categories: z.array(assetCategoryView),
      structures: z.array(z.object({ id: z.string(), name: z.string() })),
      ...freshness,
    }),
  },
  /**
   * A structure's assets in a category (progress-records-interface.md §4 GET /api/external-assets),
   * packed in columns (shared/asset-pack.ts). Cancelled by its callId when the person chooses
   * another category.
   */
  'capture:assets.list': {
    args: z.object({ structure: z.string().min(1), category: z.string().min(1) }),
    result: z.object({ assets: packedAssets, ...freshness }),
  },
  // Card offer, import and library settings: shared/ipc/card.ts.
  ...cardChannels,
  // First-frame thumbnails of the recordings: shared/ipc/thumbnails.ts.
  ...thumbnailChannels,
  // The capture plan: shared/ipc/plan.ts.
  ...planChannels,
} as const;

export type Channel = keyof typeof channels;

/**
 * The channels the main process answers itself, never the upload service: what only the shell can
 * apply (the login item lives in the operating system, docs/decisions/0018-login-start.md; the updater
 * runs in the main process, docs/decisions/0017-updates.md).
 */
export const SHELL_CHANNELS = [
  'capture:loginStart.get',
  'capture:loginStart.set',
  'capture:updates.get',
  'capture:updates.set',
] as const satisfies readonly Channel[];
export type ShellChannel = (typeof SHELL_CHANNELS)[number];
export type ArgsOf<C extends Channel> = z.input<(typeof channels)[C]['args']>;
export type ResultOf<C extends Channel> = z.infer<(typeof channels)[C]['result']>;

/** What every invoke answers. `error` is a message a person can read. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: string };

/** Events main sends to the renderer: payload schemas. */
export const events = {
  /** Live bytes of the files uploading, at most ten a second, with the queue's totals. */
  'capture:event.progress': z.object({
    files: z.array(
      queueFile.pick({
        id: true,
        bytesSent: true,
        bytesInFlight: true,
        partsDone: true,
        partsTotal: true,
        bytesPerSecond: true,
        etaSeconds: true,
      }),
    ),
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
  /**
   * The default sheets' export request (capture-upload-interface.md §4.2) failed and is about to
   * be tried again: which retry (1 for the first) of how many at most, the wait before it (ms)
   * and why (main/api/errors.ts reasonOf). The call's own answer ends it.
   */
  'capture:event.export': z.object({
    retry: z.number().int().positive(),
    of: z.number().int().nonnegative(),
    waitMs: z.number().nonnegative(),
    reason: z.string(),
  }),
  ...cardEvents,
  ...planEvents,
} as const;
export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.infer<(typeof events)[E]>;

type ShortName<C extends string> = C extends `capture:${infer S}` ? S : never;

/**
 * A call's own id, chosen by the window (e.g. `crypto.randomUUID()`), so that it can stop the
 * call with `api.cancel(callId)` while it runs: the IPC dispatch aborts the call's signal, which the
 * service's handler honours (main/ipc/dispatch.ts, docs/decisions/0026-renderer-cancel.md).
 */
export const callId = z.string().min(1).max(100);

/** What the window may add to any call: its id, to cancel it with `api.cancel`. */
export interface CallOptions {
  callId?: string;
}

/**
 * The one message that is not a channel of {@link channels}: the window gives up a call it made
 * with a `callId`. Argument `{ callId }`; answers whether such a call was running (it then answers
 * `{ ok: false, error: CANCELLED }` itself).
 */
export const CANCEL_CHANNEL = 'capture:call.cancel';
export const cancelArgs = z.object({ callId });

/**
 * The message by which the main process hands the window its port to the upload service
 * (docs/decisions/0029-service-port.md): the preload keeps the port and delivers the
 * {@link events} posted on it (`{ event, payload }`) to `api.on`'s listeners. Never a channel.
 */
export const WINDOW_PORT = 'capture:port';

/** The error a cancelled call answers: the window tells a stop it asked for from a failure by it. */
export const CANCELLED = 'Cancelled';

/**
 * A channel's function on `window.api`: its argument (`undefined` for void, when options follow),
 * optionally the call's options, and its envelope.
 */
type ApiFunction<C extends Channel> = (
  ...args: ArgsOf<C> extends void ? [] | [undefined, CallOptions] : [ArgsOf<C>] | [ArgsOf<C>, CallOptions]
) => Promise<Envelope<ResultOf<C>>>;

/**
 * The API the preload exposes as `window.api`: one fixed function per channel, named by the
 * channel without its prefix (`api['queue.pause']({ fileId })`), plus event subscription and the
 * path of a dropped file. Never `ipcRenderer` itself.
 */
export type CaptureApi = { [C in Channel as ShortName<C>]: ApiFunction<C> } & {
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
  /** The path of a dropped file (Electron's webUtils.getPathForFile). */
  getPathForFile(file: File): string;
  /** Gives up the running call made with `{ callId }`; answers whether one was running. */
  cancel(callId: string): Promise<Envelope<boolean>>;
};

/** The function names of `window.api` for the channels, for the preload and test harness to build it. */
export const apiFunctionNames = (Object.keys(channels) as Channel[]).map(
  (c) => [c, c.slice(CHANNEL_PREFIX.length)] as const,
);
