import { create } from 'zustand';
import type { StateCreator } from 'zustand';
import type { CaptureForm, DesignStatus, ProposedCapture, SettingsInput, SettingsView } from '../../shared/ipc.js';
import { api, unwrap } from './api.js';
import type { QueueSlice } from './queue-slice.js';
import { queueSlice } from './queue-slice.js';

// One store built from slices (zustand's slices pattern); components select the narrowest part.

export interface Notice {
  id: number;
  level: 'info' | 'warning' | 'error';
  message: string;
}

interface SettingsSlice {
  settings?: SettingsView;
  loadSettings(): Promise<void>;
  saveSettings(input: SettingsInput): Promise<void>;
  /** Sets a single limit (bytes per second, or null) or a timetable's text; answers an error message, or undefined when applied. */
  setBandwidth(bytesPerSecond: number | null, timetable?: string | null): Promise<string | undefined>;
  /** Pauses every upload until a time (ISO 8601), or resumes them (null). */
  pauseUntil(until: string | null): Promise<void>;
  useLocalService(): Promise<void>;
}

/** A proposed capture with the form a person fills for it. */
export interface DraftCapture {
  proposal: ProposedCapture;
  form: Omit<CaptureForm, 'paths'>;
}

interface IntakeSlice {
  drafts: DraftCapture[];
  refused: { path: string; reason: string }[];
  inspecting: boolean;
  inspect(paths: string[]): Promise<void>;
  updateDraft(key: string, change: Partial<DraftCapture['form']>): void;
  discardDraft(key: string): void;
  register(): Promise<void>;
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

export type AppState = SettingsSlice & IntakeSlice & QueueSlice & DesignSlice & NoticeSlice;
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

const intakeSlice: Slice<IntakeSlice> = (set, get) => ({
  drafts: [],
  refused: [],
  inspecting: false,
  async inspect(paths) {
    if (paths.length === 0) return;
    set({ inspecting: true });
    try {
      const result = await unwrap(api['files.inspect'](paths));
      const structure = get().settings?.structures[0];
      const known = new Set(get().drafts.map((d) => d.proposal.key));
      const fresh = result.captures
        .filter((c) => !known.has(c.key))
        .map((proposal) => ({
          proposal,
          form: { structure: structure?.id ?? '', design: structure?.designs[0]?.id, type: 'interior' as const, capturedAt: proposal.capturedAt },
        }));
      set({ drafts: [...get().drafts, ...fresh], refused: [...get().refused, ...result.refused] });
    } catch (err) {
      get().notify('error', messageOf(err));
    } finally {
      set({ inspecting: false });
    }
  },
  updateDraft(key, change) {
    set({ drafts: get().drafts.map((d) => (d.proposal.key === key ? { ...d, form: { ...d.form, ...change } } : d)) });
  },
  discardDraft(key) {
    set({ drafts: get().drafts.filter((d) => d.proposal.key !== key) });
  },
  async register() {
    const ready = get().drafts.filter((d) => !d.proposal.violation && !d.proposal.alreadyQueued);
    if (ready.length === 0) return;
    try {
      const res = await unwrap(api['captures.register'](ready.map((d) => ({ ...d.form, paths: d.proposal.files.map((f) => f.path) }))));
      const keys = new Set(ready.map((d) => d.proposal.key));
      set({ drafts: get().drafts.filter((d) => !keys.has(d.proposal.key)), refused: [...get().refused, ...res.refused] });
      get().notify('info', `${res.queued.length} capture(s) queued for upload.`);
    } catch (err) {
      get().notify('error', messageOf(err));
    }
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
  ...intakeSlice(...a),
  ...queueSlice(...a),
  ...designSlice(...a),
  ...noticeSlice(...a),
}));
