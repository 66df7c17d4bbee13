import { describe, expect, it } from 'vitest';
import type { IpcHandlers, IpcMainLike, SenderFrame } from './dispatch.js';
import { createIpcDispatcher, registerIpcHandlers } from './dispatch.js';
import { CANCEL_CHANNEL, channels } from '../../shared/ipc.js';

// The IPC dispatch (CONVENTIONS.md "IPC: one typed contract, validated at the IPC dispatch"): what is
// refused never reaches a handler; what passes reaches it parsed, and comes back in an envelope.

const APP = 'file:///app/renderer/index.html';
const top: SenderFrame = { url: APP, isTopFrame: true };

/** Handlers that record every call (channel and argument) and answer `answers[channel]` or throw it. */
function recording(answers: Record<string, unknown> = {}) {
  const calls: [string, unknown][] = [];
  const handlers = new Proxy({} as IpcHandlers, {
    get: (_t, channel: string) => async (args: unknown) => {
      calls.push([channel, args]);
      const a = answers[channel];
      if (a instanceof Error) throw a;
      return a;
    },
  });
  return { calls, dispatch: createIpcDispatcher(handlers, (url) => url === APP) };
}

describe('refusals at the IPC dispatch: no handler runs', () => {
  it.each([
    ['a channel without the prefix', 'queue.pause', { all: true }, top, 'Unknown request queue.pause'],
    [
      'a prefixed channel not in the contract',
      'capture:shell.exec',
      'rm -rf /',
      top,
      'Unknown request capture:shell.exec',
    ],
    [
      'a sender that is not the app (a remote page)',
      'capture:queue.pause',
      { all: true },
      { url: 'https://evil.example/', isTopFrame: true },
      'Refused: the request did not come from the app’s own window',
    ],
    [
      'a subframe of the app',
      'capture:queue.pause',
      { all: true },
      { url: APP, isTopFrame: false },
      'Refused: the request did not come from the app’s own window',
    ],
    [
      'no sender frame at all (a destroyed frame)',
      'capture:queue.pause',
      { all: true },
      null,
      'Refused: the request did not come from the app’s own window',
    ],
    [
      'arguments that do not parse (a file id of 0)',
      'capture:queue.pause',
      { fileId: 0 },
      top,
      'Invalid request capture:queue.pause: fileId Too small: expected number to be >0',
    ],
    [
      'an empty path list',
      'capture:files.inspect',
      [],
      top,
      'Invalid request capture:files.inspect: argument Too small: expected array to have >=1 items',
    ],
  ])('%s', async (_name, channel, args, sender, error) => {
    const { calls, dispatch } = recording();
    expect(await dispatch(channel, args, sender)).toEqual({ ok: false, error });
    expect(calls).toEqual([]);
  });
});

describe('what passes the IPC dispatch', () => {
  it('reaches its one handler with the parsed argument, and its value comes back in an envelope', async () => {
    const { calls, dispatch } = recording({ 'capture:queue.clearCompleted': { captures: 3 } });
    expect(await dispatch('capture:queue.pause', { fileId: 7, extra: 'dropped by the schema' }, top)).toEqual({
      ok: true,
      value: undefined,
    });
    expect(await dispatch('capture:queue.clearCompleted', undefined, top)).toEqual({
      ok: true,
      value: { captures: 3 },
    });
    expect(calls).toEqual([
      ['capture:queue.pause', { fileId: 7 }],
      ['capture:queue.clearCompleted', undefined],
    ]);
  });

  it('a handler that throws answers { ok: false } with its message, never a rejected promise', async () => {
    const { dispatch } = recording({ 'capture:queue.retry': new Error('No file 9 in the queue') });
    expect(await dispatch('capture:queue.retry', { fileId: 9 }, top)).toEqual({
      ok: false,
      error: 'No file 9 in the queue',
    });
  });

  it('registerIpcHandlers puts every channel of the contract, and only those, behind the IPC dispatch', async () => {
    const registered = new Map<string, Parameters<IpcMainLike['handle']>[1]>();
    const { calls, dispatch } = recording();
    registerIpcHandlers({ handle: (channel, listener) => void registered.set(channel, listener) }, dispatch);
    expect([...registered.keys()].sort()).toEqual([...Object.keys(channels), CANCEL_CHANNEL].sort());
    // Electron's senderFrame: the top frame has no parent.
    const pause = registered.get('capture:queue.pause')!;
    expect(await pause({ senderFrame: { url: APP, parent: null } }, { all: true })).toEqual({
      ok: true,
      value: undefined,
    });
    expect(await pause({ senderFrame: { url: APP, parent: {} } }, { all: true })).toMatchObject({ ok: false });
    expect(calls).toEqual([['capture:queue.pause', { all: true }]]);
  });
});

describe('the window cancels a call by the id it gave it', () => {
  /** A dispatcher whose inspect handler runs until its signal is aborted, recording what it saw. */
  function stoppable() {
    const seen: { aborted?: string } = {};
    const handlers = new Proxy({} as IpcHandlers, {
      get: () => (_args: unknown, signal: AbortSignal) =>
        new Promise((_resolve, reject) => {
          const timer = setTimeout(() => _resolve('ran to its end'), 30_000);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            seen.aborted = (signal.reason as Error).message;
            reject(signal.reason as Error);
          });
        }),
    });
    return { seen, dispatch: createIpcDispatcher(handlers, (url) => url === APP) };
  }

  it("aborts the handler's signal and answers Cancelled at once; a second cancel finds nothing", async () => {
    const { seen, dispatch } = stoppable();
    const answer = dispatch('capture:files.inspect', ['/cards/X4'], top, undefined, 'inspect-1');
    expect(await dispatch(CANCEL_CHANNEL, { callId: 'inspect-1' }, top)).toEqual({ ok: true, value: true });
    expect(await answer).toEqual({ ok: false, error: 'Cancelled' });
    expect(seen.aborted).toBe('Cancelled');
    expect(await dispatch(CANCEL_CHANNEL, { callId: 'inspect-1' }, top)).toEqual({ ok: true, value: false });
  });

  it('refuses a cancel from another frame, a bad id, and a call id already running', async () => {
    const { seen, dispatch } = stoppable();
    const answer = dispatch('capture:files.inspect', ['/cards/X4'], top, undefined, 'inspect-2');
    expect(
      await dispatch(CANCEL_CHANNEL, { callId: 'inspect-2' }, { url: 'https://evil.example/', isTopFrame: true }),
    ).toMatchObject({ ok: false, error: 'Refused: the request did not come from the app’s own window' });
    expect(await dispatch(CANCEL_CHANNEL, { callId: 7 }, top)).toMatchObject({ ok: false });
    expect(await dispatch('capture:files.inspect', ['/cards/X5'], top, undefined, { evil: true })).toMatchObject({
      ok: false,
      error: 'Invalid request capture:files.inspect: callId must be a short string',
    });
    expect(await dispatch('capture:files.inspect', ['/cards/X5'], top, undefined, 'inspect-2')).toMatchObject({
      ok: false,
      error: 'Invalid request capture:files.inspect: callId inspect-2 is in use',
    });
    expect(seen.aborted).toBeUndefined();
    await dispatch(CANCEL_CHANNEL, { callId: 'inspect-2' }, top);
    expect(await answer).toEqual({ ok: false, error: 'Cancelled' });
  });

  it('a call past its deadline is answered with the deadline’s sentence, and its handler’s signal aborted with it', async () => {
    const seen: { aborted?: string } = {};
    // The shell's own channel (the login item) whose handler never settles: no service to find it hung.
    const handlers = new Proxy({} as IpcHandlers, {
      get: () => (_args: unknown, signal: AbortSignal) =>
        new Promise(() => signal.addEventListener('abort', () => (seen.aborted = (signal.reason as Error).message))),
    });
    const dispatch = createIpcDispatcher(handlers, (url) => url === APP, {
      ms: (channel) => (channel === 'capture:loginStart.get' ? 50 : 60_000),
      message: (channel, ms) => `no answer to ${channel} within ${ms} ms`,
    });
    expect(await dispatch('capture:loginStart.get', undefined, top)).toEqual({
      ok: false,
      error: 'no answer to capture:loginStart.get within 50 ms',
    });
    expect(seen.aborted).toBe('no answer to capture:loginStart.get within 50 ms');
  });

  it("the preload's callId reaches the IPC dispatch as invoke's second argument", async () => {
    const registered = new Map<string, Parameters<IpcMainLike['handle']>[1]>();
    const { seen, dispatch } = stoppable();
    registerIpcHandlers({ handle: (channel, listener) => void registered.set(channel, listener) }, dispatch);
    const frame = { senderFrame: { url: APP, parent: null } };
    const answer = registered.get('capture:files.inspect')!(frame, ['/cards/X4'], 'inspect-3');
    expect(await registered.get(CANCEL_CHANNEL)!(frame, { callId: 'inspect-3' })).toEqual({ ok: true, value: true });
    expect(await answer).toEqual({ ok: false, error: 'Cancelled' });
    expect(seen.aborted).toBe('Cancelled');
  });
});
