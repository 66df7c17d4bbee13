// The preload exposes one frozen `window.api` of fixed functions built from the IPC contract in
// shared/ipc.ts (CONVENTIONS.md, "IPC"): never ipcRenderer itself, and events deliver only their
// payload, never the IPC event object.
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import type { CallOptions, CaptureApi, EventName } from '../shared/ipc.js';
import { CANCEL_CHANNEL, apiFunctionNames, events } from '../shared/ipc.js';

const api: Record<string, unknown> = {};
for (const [channel, name] of apiFunctionNames) {
  // Only the call's id crosses, never the options object itself: the door checks it (main/ipc/dispatch.ts).
  api[name] = (arg?: unknown, call?: CallOptions) => ipcRenderer.invoke(channel, arg, call?.callId);
}
api.cancel = (callId: string) => ipcRenderer.invoke(CANCEL_CHANNEL, { callId });
api.on = (event: EventName, listener: (payload: unknown) => void) => {
  if (!(event in events)) throw new Error(`Unknown event ${event}`);
  const wrapped = (_e: unknown, payload: unknown) => listener(payload);
  ipcRenderer.on(event, wrapped);
  return () => ipcRenderer.removeListener(event, wrapped);
};
api.getPathForFile = (file: File) => webUtils.getPathForFile(file);

contextBridge.exposeInMainWorld('api', Object.freeze(api) as CaptureApi);
