import type { z } from 'zod';
import type { Channel, Envelope, ResultOf } from '../../shared/ipc.js';
import {
  CANCELLED,
  CANCEL_CHANNEL,
  CHANNEL_PREFIX,
  callId as callIdSchema,
  cancelArgs,
  channels,
} from '../../shared/ipc.js';

/**
 * One handler per channel of shared/ipc.ts, receiving its argument already parsed and the call's
 * signal: aborted when the caller gives up (the service host's `cancel`), on which a handler that
 * does long work stops within a second, leaving nothing half-written, and rejects with the
 * signal's reason. The service and the IPC dispatch always pass one; a test calling a handler directly may not.
 */
export type IpcHandlers = {
  [C in Channel]: (args: z.infer<(typeof channels)[C]['args']>, signal?: AbortSignal) => Promise<ResultOf<C>>;
};

/** The frame a message came from: its URL and whether it is the top frame. */
export interface SenderFrame {
  url: string;
  isTopFrame: boolean;
}

/**
 * Sends one message to its handler and answers with an envelope; never throws. `signal`: the
 * call's, when its caller can give up. `callId`: the id the window gave the call
 * (shared/ipc.ts CallOptions), by which a later {@link CANCEL_CHANNEL} message gives it up.
 */
export type IpcDispatcher = (
  channel: string,
  rawArgs: unknown,
  sender: SenderFrame | null,
  signal?: AbortSignal,
  callId?: unknown,
) => Promise<Envelope<unknown>>;

/**
 * How long the IPC dispatch waits for a handler's answer: `ms(channel)` (ms), and the sentence the
 * window is answered with when it passes (main/service-host/call-deadlines.ts in the app).
 */
export interface CallDeadlines {
  ms(channel: Channel): number;
  message(channel: Channel, ms: number): string;
}

/**
 * The IPC dispatch every message from the renderer goes through (VS Code's validatedIpcMain, Signal's
 * envelopes): refuses a channel without the prefix or not in the contract, a sender that is not
 * the app's own top frame, and arguments that do not parse; answers `{ ok, value }` or
 * `{ ok: false, error }` with a message a person can read.
 *
 * `isAppUrl` tells the app's own pages (the packaged `file://` renderer, or the test server).
 * `deadlines`: every call is answered within its deadline: when it passes, the call's signal is
 * aborted (the handler stops, as on the window's cancel) and the window is answered with the
 * deadline's sentence. Without it, a call waits for its handler.
 */
export function createIpcDispatcher(
  handlers: IpcHandlers,
  isAppUrl: (url: string) => boolean,
  deadlines?: CallDeadlines,
): IpcDispatcher {
  // The window's calls running with an id it gave: each one's controller, aborted by CANCEL_CHANNEL.
  const running = new Map<string, AbortController>();
  return async (channel, rawArgs, sender, signal, givenId) => {
    if (channel !== CANCEL_CHANNEL && (!channel.startsWith(CHANNEL_PREFIX) || !(channel in channels)))
      return { ok: false, error: `Unknown request ${channel}` };
    if (!sender || !sender.isTopFrame || !isAppUrl(sender.url))
      return { ok: false, error: 'Refused: the request did not come from the app’s own window' };
    if (channel === CANCEL_CHANNEL) {
      const parsed = cancelArgs.safeParse(rawArgs);
      if (!parsed.success) return { ok: false, error: `Invalid request ${channel}: callId must be a short string` };
      const call = running.get(parsed.data.callId);
      call?.abort(new Error(CANCELLED));
      return { ok: true, value: call !== undefined };
    }
    const c = channel as Channel;
    const parsed = channels[c].args.safeParse(rawArgs);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { ok: false, error: `Invalid request ${c}: ${issue.path.join('.') || 'argument'} ${issue.message}` };
    }
    if (givenId !== undefined && !callIdSchema.safeParse(givenId).success)
      return { ok: false, error: `Invalid request ${c}: callId must be a short string` };
    const id = givenId as string | undefined;
    if (id !== undefined && running.has(id))
      return { ok: false, error: `Invalid request ${c}: callId ${id} is in use` };
    // The call's own controller: aborted by the caller's signal or by the window's cancel.
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (id !== undefined) running.set(id, ac);
    const ms = deadlines?.ms(c);
    const timer = ms === undefined ? undefined : setTimeout(() => ac.abort(new Error(deadlines!.message(c, ms))), ms);
    try {
      const handler = handlers[c] as (a: unknown, signal: AbortSignal) => Promise<unknown>;
      const value = await abortable(handler(parsed.data, ac.signal), ac.signal);
      return { ok: true, value };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (id !== undefined) running.delete(id);
    }
  };
}

/**
 * `work`, or the signal's reason as soon as it is aborted: a cancelled call answers at once (the
 * service host does the same), whatever its handler still does.
 */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The subset of Electron's ipcMain the shell uses; the dispatcher itself needs no Electron. */
export interface IpcMainLike {
  handle(
    channel: string,
    listener: (
      event: { senderFrame: { url: string; parent: unknown } | null },
      arg: unknown,
      callId?: unknown,
    ) => Promise<unknown>,
  ): void;
}

/**
 * Registers every channel of the contract, and the window's cancel (CANCEL_CHANNEL), on ipcMain
 * through one dispatcher (the only way handlers are registered). The preload sends a call's
 * `callId` as invoke's second argument.
 */
export function registerIpcHandlers(ipcMain: IpcMainLike, dispatch: IpcDispatcher): void {
  for (const channel of [...Object.keys(channels), CANCEL_CHANNEL]) {
    ipcMain.handle(channel, (event, arg, callId) =>
      dispatch(
        channel,
        arg,
        event.senderFrame ? { url: event.senderFrame.url, isTopFrame: event.senderFrame.parent === null } : null,
        undefined,
        callId,
      ),
    );
  }
}
