import type { z } from 'zod';
import type { Channel, Envelope, ResultOf } from '../../shared/ipc.js';
import { CHANNEL_PREFIX, channels } from '../../shared/ipc.js';

/**
 * One handler per channel of shared/ipc.ts, receiving its argument already parsed and the call's
 * signal: aborted when the caller gives up (the service host's `cancel`), on which a handler that
 * does long work stops within a second, leaving nothing half-written, and rejects with the
 * signal's reason. The service and the door always pass one; a test calling a handler directly may not.
 */
export type IpcHandlers = {
  [C in Channel]: (args: z.infer<(typeof channels)[C]['args']>, signal?: AbortSignal) => Promise<ResultOf<C>>;
};

/** The frame a message came from: its URL and whether it is the top frame. */
export interface SenderFrame {
  url: string;
  isTopFrame: boolean;
}

/** Sends one message to its handler and answers with an envelope; never throws. `signal`: the call's, when its caller can give up. */
export type IpcDispatcher = (
  channel: string,
  rawArgs: unknown,
  sender: SenderFrame | null,
  signal?: AbortSignal,
) => Promise<Envelope<unknown>>;

/**
 * The door every message from the renderer goes through (VS Code's validatedIpcMain, Signal's
 * envelopes): refuses a channel without the prefix or not in the contract, a sender that is not
 * the app's own top frame, and arguments that do not parse; answers `{ ok, value }` or
 * `{ ok: false, error }` with a message a person can read.
 *
 * `isAppUrl` tells the app's own pages (the packaged `file://` renderer, or the test server).
 */
export function createIpcDispatcher(handlers: IpcHandlers, isAppUrl: (url: string) => boolean): IpcDispatcher {
  return async (channel, rawArgs, sender, signal = new AbortController().signal) => {
    if (!channel.startsWith(CHANNEL_PREFIX) || !(channel in channels))
      return { ok: false, error: `Unknown request ${channel}` };
    if (!sender || !sender.isTopFrame || !isAppUrl(sender.url))
      return { ok: false, error: 'Refused: the request did not come from the app’s own window' };
    const c = channel as Channel;
    const parsed = channels[c].args.safeParse(rawArgs);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { ok: false, error: `Invalid request ${c}: ${issue.path.join('.') || 'argument'} ${issue.message}` };
    }
    try {
      const handler = handlers[c] as (a: unknown, signal: AbortSignal) => Promise<unknown>;
      return { ok: true, value: await handler(parsed.data, signal) };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  };
}

/** The subset of Electron's ipcMain the shell uses; the dispatcher itself needs no Electron. */
export interface IpcMainLike {
  handle(
    channel: string,
    listener: (event: { senderFrame: { url: string; parent: unknown } | null }, arg: unknown) => Promise<unknown>,
  ): void;
}

/** Registers every channel of the contract on ipcMain through one dispatcher (the only way handlers are registered). */
export function registerIpcHandlers(ipcMain: IpcMainLike, dispatch: IpcDispatcher): void {
  for (const channel of Object.keys(channels)) {
    ipcMain.handle(channel, (event, arg) =>
      dispatch(
        channel,
        arg,
        event.senderFrame ? { url: event.senderFrame.url, isTopFrame: event.senderFrame.parent === null } : null,
      ),
    );
  }
}
