import { create } from 'zustand';
import type { StateCreator } from 'zustand';
import type { DesignStatus, EventPayload, QueueView, SettingsInput, SettingsView } from '../../shared/ipc.js';
import { api, unwrap } from './api.js';

// One store built from slices (zustand's slices pattern); components select the narrowest part.
// The registration step keeps its own store (drafts-store.ts).

export interface Notice {
  id: number;
  level: 'info' | 'warning' | 'error';
  message: string;
}

interface SettingsSlice {
  settings?: SettingsView;
  loadSettings(): Promise<void>;
  saveSettings(input: SettingsInput): Promise<void>;
  setBandwidth(bytesPerSecond: number | null): Promise<void>;
  useLocalService(): Promise<void>;
}

interface QueueSlice {
  queue: QueueView;
  loadQueue(): Promise<void>;
  applyProgress(p: EventPayload<'capture:event.progress'>): void;
  control(action: 'pause' | 'resume' | 'retry', target: { fileId: number } | { all: true }): Promise<void>;
  removeCapture(captureRow: number): Promise<void>;
  resolve(captureRow: number, decision: 'register-again' | 'drop'): Promise<void>;
}

interface DesignSlice {
  designs?: DesignStatus;
  exportMessage?: string;
  checkDesigns(): Promise<void>;
  requestExport(): Promise<void>;
}

interface NoticeSlice {
  notices: Notice[];
  notify(level: Notice['level'], message: string): void;
  dismiss(id: number): void;
}

export type AppState = SettingsSlice & QueueSlice & DesignSlice & NoticeSlice;
type Slice<T> = StateCreator<AppState, [], [], T>;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

const settingsSlice: Slice<SettingsSlice> = (set, get) => ({
  async loadSettings() {
    set({ settings: await unwrap(api['settings.get']()) });
  },
  async saveSettings(input) {
    set({ settings: await unwrap(api['settings.save'](input)) });
    get().notify('info', 'Settings saved; signed in.');
    await get().loadQueue();
  },
  async setBandwidth(bytesPerSecond) {
    try {
      await unwrap(api['engine.limits']({ bandwidthBytesPerSecond: bytesPerSecond }));
      await get().loadSettings();
    } catch (err) {
      get().notify('error', messageOf(err));
    }
  },
  async useLocalService() {
    set({ settings: await unwrap(api['settings.useLocalService']()) });
    get().notify('info', 'Using the local test service: uploads stay on this computer.');
    await get().loadQueue();
  },
});

const queueSlice: Slice<QueueSlice> = (set, get) => ({
  queue: { captures: [], files: [], blocked: null },
  async loadQueue() {
    set({ queue: await unwrap(api['queue.list']()) });
  },
  applyProgress(p) {
    const byId = new Map(p.files.map((f) => [f.id, f]));
    const { queue } = get();
    set({ queue: { ...queue, files: queue.files.map((f) => (byId.has(f.id) ? { ...f, ...byId.get(f.id)! } : f)) } });
  },
  async control(action, target) {
    try {
      await unwrap(api[`queue.${action}`](target));
      await get().loadQueue();
    } catch (err) {
      get().notify('error', messageOf(err));
    }
  },
  async removeCapture(captureRow) {
    await unwrap(api['queue.remove']({ captureRow })).catch((err: unknown) => get().notify('error', messageOf(err)));
    await get().loadQueue();
  },
  async resolve(captureRow, decision) {
    await unwrap(api['queue.resolve']({ captureRow, decision })).catch((err: unknown) => get().notify('error', messageOf(err)));
    await get().loadQueue();
  },
});

const designSlice: Slice<DesignSlice> = (set, get) => ({
  async checkDesigns() {
    try {
      set({ designs: await unwrap(api['designs.check']()) });
    } catch (err) {
      get().notify('warning', `Could not check the default designs: ${messageOf(err)}`);
    }
  },
  async requestExport() {
    try {
      const { message } = await unwrap(api['designs.export']());
      set({ exportMessage: message });
      await get().checkDesigns();
    } catch (err) {
      get().notify('error', `The export could not be requested: ${messageOf(err)}`);
    }
  },
});

let noticeId = 0;
const noticeSlice: Slice<NoticeSlice> = (set, get) => ({
  notices: [],
  notify(level, message) {
    const id = ++noticeId;
    set({ notices: [...get().notices.slice(-4), { id, level, message }] });
    if (level === 'info') setTimeout(() => get().dismiss(id), 6000);
  },
  dismiss(id) {
    set({ notices: get().notices.filter((n) => n.id !== id) });
  },
});

/** The renderer's one store. */
export const useApp = create<AppState>()((...a) => ({
  ...settingsSlice(...a),
  ...queueSlice(...a),
  ...designSlice(...a),
  ...noticeSlice(...a),
}));
