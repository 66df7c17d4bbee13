// The preload exposes one frozen `window.api` of fixed functions, never ipcRenderer itself
// (CONVENTIONS.md, "IPC"). The channels are filled in by the typed contract in shared/ipc.ts.
import { contextBridge } from 'electron';
import { APP_NAME } from '../shared/app-info.js';

const api = Object.freeze({ appName: APP_NAME });

contextBridge.exposeInMainWorld('api', api);
