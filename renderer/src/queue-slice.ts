import type { StateCreator } from 'zustand';
import type { EventPayload, QueueCapture, QueueFile, QueueHoldView, QueueTotals, QueueView } from '../../shared/ipc.js';
import { api, unwrap } from './api.js';
import type { NoticeSlice } from './notices-slice.js';

/**
 * What is folded in the queue list: each capture's files stay inside its row until
 * the capture is opened (`open` by capture id); completed captures of one batch are one line until
 * the batch is opened (`openBatches` by key, components/queue/list-rows.ts batchKey); `detailed` opens
 * everything (the view of every file).
 */
export interface Folding {
  detailed: boolean;
  open: Record<number, boolean>;
  openBatches: Record<string, boolean>;
}

/** Where the choice "Show every file" is kept between starts. */
const DETAILED_KEY = 'queue-show-every-file';
const storedDetailed = () => typeof localStorage !== 'undefined' && localStorage.getItem(DETAILED_KEY) === 'true';

/** Capture ids in queue order: moved to the front first (the last one moved first), then by age (main/queue/queue.ts captures()). */
const queueOrder = (captures: Record<number, QueueCapture>): number[] =>
  Object.values(captures)
    .sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0) || a.id - b.id)
    .map((c) => c.id);

/** What the queue list shows: everything, what still moves, what needs a person, or what is done. */
export type QueueFilter = 'all' | 'active' | 'needs-you' | 'completed';

/** A capture's correction, as the queue's edit form sends it (§4.4 fields; `capturedAt` ISO 8601 with zone). */
interface CaptureEdit {
  structure: string;
  design?: string;
  type: 'interior' | 'exterior';
  capturedAt: string;
}

/**
 * The queue, keyed by id (CONVENTIONS.md, "Renderer state and events"): main's events carry the
 * rows that changed and the slice puts them in place, so a row re-renders only when its own
 * record changes and 10,000 queued files cost nothing while four upload. `rowsVersion` moves when
 * rows are added, removed or change state (never on a progress tick): the list's layout follows it.
 */
export interface QueueSlice {
  files: Record<number, QueueFile>;
  captures: Record<number, QueueCapture>;
  /** Capture ids in queue order. */
  captureOrder: number[];
  /** File ids of each capture, in frame order. */
  filesOf: Record<number, number[]>;
  totals: QueueTotals;
  /** Bytes per second smoothed over the last ticks, for a whole-queue ETA that does not jump. */
  smoothedRate: number;
  blocked: string | null;
  /** The queue-wide hold in force ("Pause until 07:00", the timetable's pause hours), or null; every rows event says it. */
  hold: QueueHoldView | null;
  /** Whether the app keeps the computer awake for the uploads (main's `capture:event.power`). */
  keptAwake: boolean;
  rowsVersion: number;
  filter: QueueFilter;
  /** What is folded in the list: captures opened, batches of completed captures opened, every file shown. */
  folding: Folding;
  /** Opens or folds a capture's files. */
  toggleCapture(captureRow: number): void;
  /** Opens or folds a batch of completed captures (list-rows.ts batchKey). */
  toggleBatch(key: string): void;
  /** Shows every file of every capture, or folds them again; kept for the next start. */
  setDetailed(detailed: boolean): void;
  /** Moves a capture to the front of the queue (`front`) or back to its place by age; its rows event says it. */
  moveCapture(captureRow: number, front: boolean): Promise<void>;
  loadQueue(): Promise<void>;
  applyRows(p: EventPayload<'capture:event.rows'>): void;
  applyProgress(p: EventPayload<'capture:event.progress'>): void;
  applyPower(p: EventPayload<'capture:event.power'>): void;
  setFilter(filter: QueueFilter): void;
  control(action: 'pause' | 'resume' | 'retry', target: { fileId: number } | { all: true }): Promise<void>;
  removeCapture(captureRow: number): Promise<void>;
  removeFile(fileId: number): Promise<void>;
  clearCompleted(): Promise<void>;
  editCapture(captureRow: number, edit: CaptureEdit): Promise<boolean>;
  resolve(captureRow: number, decision: 'register-again' | 'drop'): Promise<void>;
}

const EMPTY_TOTALS: QueueTotals = {
  files: 0,
  captures: 0,
  completed: 0,
  uploading: 0,
  queued: 0,
  retrying: 0,
  paused: 0,
  failed: 0,
  cancelled: 0,
  needYou: 0,
  bytesTotal: 0,
  bytesDone: 0,
  bytesRemaining: 0,
  bytesPerSecond: 0,
};

/** Weight of a new rate sample in the smoothed rate (ticks come at most ten a second). */
const SMOOTHING = 0.1;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Whether a progress tick's figures for a file differ from what the file shows (any key of the tick). */
function movedBy(old: QueueFile, tick: Partial<QueueFile>): boolean {
  return (Object.keys(tick) as (keyof QueueFile)[]).some((k) => old[k] !== tick[k]);
}

/** The whole queue as the slice keeps it. */
function fromView(
  view: QueueView,
): Pick<QueueSlice, 'files' | 'captures' | 'captureOrder' | 'filesOf' | 'totals' | 'blocked' | 'hold' | 'keptAwake'> {
  const files: Record<number, QueueFile> = {};
  const filesOf: Record<number, number[]> = {};
  for (const f of view.files) {
    files[f.id] = f;
    (filesOf[f.captureRow] ??= []).push(f.id);
  }
  const captures: Record<number, QueueCapture> = {};
  for (const c of view.captures) captures[c.id] = c;
  return {
    files,
    captures,
    captureOrder: queueOrder(captures),
    filesOf,
    totals: view.totals,
    blocked: view.blocked,
    hold: view.hold,
    keptAwake: view.keptAwake,
  };
}

/**
 * The queue slice over the narrowest state it needs: its own fields and the notices it raises.
 * It names that state itself rather than the store's AppState, so store.ts imports this file and
 * never the other way round (no import circle).
 */
export const queueSlice: StateCreator<QueueSlice & NoticeSlice, [], [], QueueSlice> = (set, get) => {
  /** Runs a queue action; its effect arrives as a rows event, its error as a notice. */
  const act = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      get().notify('error', messageOf(err));
    }
  };
  return {
    files: {},
    captures: {},
    captureOrder: [],
    filesOf: {},
    totals: EMPTY_TOTALS,
    smoothedRate: 0,
    blocked: null,
    hold: null,
    keptAwake: false,
    rowsVersion: 0,
    filter: 'all',
    folding: { detailed: storedDetailed(), open: {}, openBatches: {} },
    toggleCapture(captureRow) {
      const f = get().folding;
      set({ folding: { ...f, open: { ...f.open, [captureRow]: !f.open[captureRow] } } });
    },
    toggleBatch(key) {
      const f = get().folding;
      set({ folding: { ...f, openBatches: { ...f.openBatches, [key]: !f.openBatches[key] } } });
    },
    setDetailed(detailed) {
      if (typeof localStorage !== 'undefined') localStorage.setItem(DETAILED_KEY, String(detailed));
      set({ folding: { ...get().folding, detailed } });
    },
    moveCapture: (captureRow, front) => act(unwrap(api['queue.front']({ captureRow, front }))),
    async loadQueue() {
      set({ ...fromView(await unwrap(api['queue.list']())), rowsVersion: get().rowsVersion + 1 });
    },
    applyRows(p) {
      const s = get();
      const files = { ...s.files };
      const captures = { ...s.captures };
      const added = new Map<number, number[]>();
      const gone = new Set<number>();
      let newCaptures = false;
      for (const c of p.captures) {
        newCaptures ||= !captures[c.id];
        captures[c.id] = c;
      }
      for (const f of p.files) {
        if (!files[f.id]) added.set(f.captureRow, [...(added.get(f.captureRow) ?? []), f.id]);
        files[f.id] = f;
      }
      for (const id of p.removed.files) {
        if (files[id]) gone.add(files[id].captureRow);
        delete files[id];
      }
      for (const id of p.removed.captures) delete captures[id];
      // A capture moved to the front or back changes the order too.
      const moved = p.captures.some((c) => (s.captures[c.id]?.priority ?? 0) !== (c.priority ?? 0));
      const captureOrder = newCaptures || moved || p.removed.captures.length ? queueOrder(captures) : s.captureOrder;
      let filesOf = s.filesOf;
      if (added.size || gone.size || p.removed.captures.length) {
        filesOf = { ...filesOf };
        for (const id of p.removed.captures) delete filesOf[id];
        for (const c of new Set([...added.keys(), ...gone])) {
          filesOf[c] = [...(filesOf[c] ?? []), ...(added.get(c) ?? [])].filter((id) => files[id]).sort((a, b) => a - b);
        }
      }
      set({
        files,
        captures,
        captureOrder,
        filesOf,
        totals: p.totals,
        blocked: p.blocked,
        hold: p.hold,
        rowsVersion: s.rowsVersion + 1,
      });
    },
    applyPower(p) {
      set({ keptAwake: p.keptAwake });
    },
    applyProgress(p) {
      const s = get();
      // Only the entries whose figures moved are replaced; the map is copied once, and only when one
      // did, so every other row (memoized on its own file object) keeps its object and is not redrawn.
      let changed: Record<number, QueueFile> | undefined;
      for (const f of p.files) {
        const old = s.files[f.id];
        // Only a file uploading moves; a tick that crossed its rows event (paused, failed) is late.
        if (!old || (old.state !== 'uploading' && old.state !== 'pending') || !movedBy(old, f)) continue;
        (changed ??= {})[f.id] = { ...old, ...f };
      }
      const rate = p.totals.bytesPerSecond;
      const smoothedRate =
        rate === 0 ? 0 : s.smoothedRate === 0 ? rate : s.smoothedRate + SMOOTHING * (rate - s.smoothedRate);
      set(
        changed
          ? { files: { ...s.files, ...changed }, totals: p.totals, smoothedRate }
          : { totals: p.totals, smoothedRate },
      );
    },
    setFilter(filter) {
      set({ filter });
    },
    control: (action, target) => act(unwrap(api[`queue.${action}`](target))),
    removeCapture: (captureRow) => act(unwrap(api['queue.remove']({ captureRow }))),
    removeFile: (fileId) => act(unwrap(api['queue.removeFile']({ fileId }))),
    async clearCompleted() {
      try {
        // The rows leave the list: that is the answer (messages are for what needs a person).
        await unwrap(api['queue.clearCompleted']());
      } catch (err) {
        get().notify('error', messageOf(err));
      }
    },
    async editCapture(captureRow, edit) {
      try {
        await unwrap(api['queue.edit']({ captureRow, ...edit }));
        return true;
      } catch (err) {
        get().notify('error', messageOf(err));
        return false;
      }
    },
    resolve: (captureRow, decision) => act(unwrap(api['queue.resolve']({ captureRow, decision }))),
  };
};
