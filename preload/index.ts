// The preload exposes one frozen `window.api` of fixed functions built from the IPC contract in
// shared/ipc.ts (CONVENTIONS.md, "IPC"): never ipcRenderer itself, and events deliver only their
// payload, never the IPC event object.
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import type { CaptureApi, EventName } from '../shared/ipc.js';
import { apiFunctionNames, events } from '../shared/ipc.js';

const api: Record<string, unknown> = {};
for (const [channel, name] of apiFunctionNames) {
  api[name] = (arg?: unknown) => ipcRenderer.invoke(channel, arg);
}
api.on = (event: EventName, listener: (payload: unknown) => void) => {
  if (!(event in events)) throw new Error(`Unknown event ${event}`);
  const wrapped = (_e: unknown, payload: unknown) => listener(payload);
  ipcRenderer.on(event, wrapped);
  return () => ipcRenderer.removeListener(event, wrapped);
};
api.getPathForFile = (file: File) => webUtils.getPathForFile(file);

contextBridge.exposeInMainWorld('api', Object.freeze(api) as CaptureApi);
