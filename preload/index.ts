// The preload exposes one frozen `window.api` of fixed functions built from the IPC contract in
// shared/ipc.ts (CONVENTIONS.md, "IPC"): never ipcRenderer itself, and events deliver only their
// payload, never the IPC event object.
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import type { CallOptions, CaptureApi, EventName } from '../shared/ipc.js';
import { CANCEL_CHANNEL, WINDOW_PORT, apiFunctionNames, events } from '../shared/ipc.js';

const api: Record<string, unknown> = {};
for (const [channel, name] of apiFunctionNames) {
  // Only the call's id crosses, never the options object itself: the IPC dispatch checks it (main/ipc/dispatch.ts).
  api[name] = (arg?: unknown, call?: CallOptions) => ipcRenderer.invoke(channel, arg, call?.callId);
}
api.cancel = (callId: string) => ipcRenderer.invoke(CANCEL_CHANNEL, { callId });
// The events the upload service posts on the window's own port (docs/decisions/0029-service-port.md);
// the port stays here, and only the payloads of the contract's events reach the page.
const portListeners = new Map<string, Set<(payload: unknown) => void>>();
ipcRenderer.on(WINDOW_PORT, (e) => {
  const port = e.ports[0];
  if (!port) return;
  port.onmessage = ({ data }: MessageEvent<{ event?: unknown; payload?: unknown }>) => {
    if (typeof data?.event === 'string' && data.event in events)
      portListeners.get(data.event)?.forEach((l) => l(data.payload));
  };
});
api.on = (event: EventName, listener: (payload: unknown) => void) => {
  if (!(event in events)) throw new Error(`Unknown event ${event}`);
  // Relayed by the main process (its own events, or every event when there is no port), or on the port.
  const wrapped = (_e: unknown, payload: unknown) => listener(payload);
  ipcRenderer.on(event, wrapped);
  if (!portListeners.has(event)) portListeners.set(event, new Set());
  portListeners.get(event)!.add(listener);
  return () => {
    ipcRenderer.removeListener(event, wrapped);
    portListeners.get(event)?.delete(listener);
  };
};
api.getPathForFile = (file: File) => webUtils.getPathForFile(file);

contextBridge.exposeInMainWorld('api', Object.freeze(api) as CaptureApi);
