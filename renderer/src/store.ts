import { create } from 'zustand';
import type { StateCreator } from 'zustand';
import type { DesignStatus, EventPayload, SettingsInput, SettingsView } from '../../shared/ipc.js';
import { CANCELLED } from '../../shared/ipc.js';
import { api, unwrap } from './api.js';
import type { QueueSlice } from './queue-slice.js';
import { queueSlice } from './queue-slice.js';
import type { ProgressSlice } from './progress-slice.js';
import { progressSlice } from './progress-slice.js';
import type { OutboxSlice } from './outbox-slice.js';
import { outboxSlice } from './outbox-slice.js';
import type { AssetsSlice } from './assets-slice.js';
import { assetsSlice } from './assets-slice.js';
import type { Notice, NoticeSlice } from './notices-slice.js';
import { noticeSlice } from './notices-slice.js';
import type { CardsSlice } from './cards-slice.js';
import { cardsSlice } from './cards-slice.js';
import type { DraftsSlice } from './drafts-slice.js';
import { draftsSlice } from './drafts-slice.js';
import type { ThumbnailsSlice } from './thumbnails-slice.js';
import { thumbnailsSlice } from './thumbnails-slice.js';
import type { PlanSlice } from './plan-slice.js';
import { planSlice } from './plan-slice.js';

export type { Notice };

// One store built from slices (zustand's slices pattern); components select the narrowest part,
// and each slice's updates replace only the keys that changed.

interface SettingsSlice {
  settings?: SettingsView;
  loadSettings(): Promise<void>;
  saveSettings(input: SettingsInput): Promise<void>;
  /** Sets a single limit (bytes per second, or null) or a timetable's text; answers an error message, or undefined when applied. */
  setBandwidth(bytesPerSecond: number | null, timetable?: string | null): Promise<string | undefined>;
  /** Holds the whole queue until a time (ISO 8601), or ends the hold (null); the queue's rows event then says it. */
  pauseUntil(until: string | null): Promise<void>;
  useLocalService(): Promise<void>;
}

interface DesignSlice {
  designs?: DesignStatus;
  exportMessage?: string;
  /** The export request on its way: its call id, by which Cancel gives it up (shared/ipc.ts CallOptions). */
  exportCall?: string;
  /** The export request's last retry, while it is on its way (`capture:event.export`), with when it was heard (ms since 1970). */
  exportRetry?: EventPayload<'capture:event.export'> & { heardAt: number };
  /** Keeps a retry of the export request on its way (ignored when none is). */
  applyExportRetry(retry: EventPayload<'capture:event.export'>): void;
  checkDesigns(): Promise<void>;
  requestExport(): Promise<void>;
  /** Gives up the export request on its way: nothing is recorded, and the notice says it was not requested. */
  cancelExport(): void;
}

export type AppState = SettingsSlice &
  QueueSlice &
  DesignSlice &
  ProgressSlice &
  OutboxSlice &
  AssetsSlice &
  NoticeSlice &
  CardsSlice &
  DraftsSlice &
  PlanSlice &
  ThumbnailsSlice;
type Slice<T> = StateCreator<AppState, [], [], T>;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

const settingsSlice: Slice<SettingsSlice> = (set, get) => ({
  async loadSettings() {
    set({ settings: await unwrap(api['settings.get']()) });
  },
  async saveSettings(input) {
    set({ settings: await unwrap(api['settings.save'](input)) });
    await get().loadQueue();
  },
  async setBandwidth(bytesPerSecond, timetable = null) {
    try {
      await unwrap(api['engine.limits']({ bandwidthBytesPerSecond: bytesPerSecond, timetable }));
      await get().loadSettings();
      return undefined;
    } catch (err) {
      return messageOf(err);
    }
  },
  async pauseUntil(until) {
    try {
      await unwrap(api['queue.pauseUntil']({ until }));
    } catch (err) {
      get().notify('error', messageOf(err));
    }
  },
  async useLocalService() {
    set({ settings: await unwrap(api['settings.useLocalService']()) });
    // No message: the top bar's badge says so on every screen.
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
  applyExportRetry(retry) {
    if (get().exportCall) set({ exportRetry: { ...retry, heardAt: Date.now() } });
  },
  async requestExport() {
    const callId = crypto.randomUUID();
    set({ exportCall: callId, exportRetry: undefined });
    try {
      const { message } = await unwrap(api['designs.export'](undefined, { callId }));
      set({ exportMessage: message });
      await get().checkDesigns();
    } catch (err) {
      if (messageOf(err) === CANCELLED) get().notify('info', 'Export cancelled: no new export was requested.');
      else get().notify('error', `The export could not be requested: ${messageOf(err)}`);
    } finally {
      set({ exportCall: undefined, exportRetry: undefined });
    }
  },
  cancelExport() {
    const callId = get().exportCall;
    if (callId) void api.cancel(callId);
  },
});

/** The renderer's one store. */
export const useApp = create<AppState>()((...a) => ({
  ...settingsSlice(...a),
  ...queueSlice(...a),
  ...designSlice(...a),
  ...progressSlice(...a),
  ...outboxSlice(...a),
  ...assetsSlice(...a),
  ...noticeSlice(...a),
  ...cardsSlice(...a),
  ...draftsSlice(...a),
  ...planSlice(...a),
  ...thumbnailsSlice(...a),
}));
