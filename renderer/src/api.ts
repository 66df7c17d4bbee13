import type { CaptureApi, Envelope } from '../../shared/ipc.js';

/** The preload's window.api (or the test harness's, built from the same contract). */
export const api = (window as unknown as { api: CaptureApi }).api;

/** Unwraps an IPC envelope: the value, or an Error with the main process's message. */
export async function unwrap<T>(p: Promise<Envelope<T>>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(r.error);
  return r.value;
}
