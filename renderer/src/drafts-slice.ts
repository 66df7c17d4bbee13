import type { StateCreator } from 'zustand';
import type { LastPlacement, SettingsView } from '../../shared/ipc.js';
import { CANCELLED } from '../../shared/ipc.js';
import type { TimeShift } from '../../shared/time-shift.js';
import { shiftTimes } from '../../shared/time-shift.js';
import { api, unwrap } from './api.js';
import type { DraftCapture, DraftForm } from './placement.js';
import { isReady, isRegistrable } from './placement.js';
import type { NoticeSlice } from './notices-slice.js';

/**
 * The registration step's slice of the one store (store.ts): the captures found in dropped files, in recording order, what
 * was chosen for each, which rows are selected, and the files set aside.
 */
export interface DraftsSlice {
  /** Captures in recording order (the time first proposed, so editing a time never moves a row). */
  drafts: DraftCapture[];
  /** Files that will not be uploaded, with the reason a person reads. */
  refused: { path: string; reason: string }[];
  /** Keys of the selected registrable captures. */
  selected: ReadonlySet<string>;
  /** The row a shift-click range starts from: the last one clicked. */
  anchor?: string;
  inspecting: boolean;
  /** The running inspection's call id (shared/ipc.ts CallOptions), by which Stop cancels it. */
  inspectCall?: string;
  /** Stops the running inspection (api.cancel): nothing it read is added, and the notice says so. */
  stopInspect(): void;
  /** Where the previous card of this project went (captures.lastPlacement), or null. */
  lastPlacement: LastPlacement | null;
  /**
   * Reads dropped or chosen paths in main (files.inspect) and adds the captures not listed yet;
   * when nothing registrable is left from the last card, the new card replaces what remains of it.
   */
  inspect(paths: string[]): Promise<void>;
  /** Selects or unselects one row; with `range`, every registrable row from the anchor to it takes its new state. */
  toggleDraft(key: string, range: boolean): void;
  /**
   * Moves the end of a keyboard range (Shift with an arrow, Page or Home/End key) from
   * `from` to `to`: the rows from the anchor to `to` are selected, those from the anchor to `from`
   * that fall outside it are unselected, and rows chosen apart stay. Without an anchor the range
   * starts at `from`. `order` is the table's order of keys (it follows corrected times).
   */
  extendTo(from: string, to: string, order: readonly string[]): void;
  /** Selects (`on`) or unselects the given rows: a walk, or all. */
  selectDrafts(keys: readonly string[], on: boolean): void;
  /** Sets the chosen fields on every selected capture, then clears the selection; answers how many changed. */
  applyToSelected(change: Partial<Pick<DraftForm, 'structure' | 'design' | 'type'>>): number;
  /** Sets fields on the given captures (the carried-over placement). */
  applyTo(keys: readonly string[], change: Partial<Pick<DraftForm, 'structure' | 'design' | 'type'>>): void;
  /** Sets one capture's time: ISO 8601 with a zone. */
  setCapturedAt(key: string, iso: string): void;
  /**
   * Shifts the selected captures' times (shared/time-shift.ts: "+01:00", "-1 day", "first 09:12"),
   * each in its own zone, then clears the selection; answers how many moved.
   */
  shiftSelected(shift: TimeShift): number;
  /** The type last chosen for each structure id in this window (offered as such, never a silent default). */
  lastTypeFor: Readonly<Record<string, 'interior' | 'exterior'>>;
  /** Takes the selected captures off this list (nothing was sent for them). */
  discardSelected(): void;
  /** Empties the list: captures not registered and files set aside (nothing was sent for them). */
  clearDrafts(): void;
  /** Registers every ready capture (captures.register), then drops them from the list. */
  registerDrafts(): Promise<void>;
  loadLastPlacement(): Promise<void>;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const order = (a: DraftCapture, b: DraftCapture) =>
  Date.parse(a.proposal.capturedAt) - Date.parse(b.proposal.capturedAt) || a.proposal.key.localeCompare(b.proposal.key);

/**
 * The registration step's slice over the narrowest state it needs: its own fields, the notices it
 * raises and the settings' structures it registers against (named here, not the store's AppState,
 * so store.ts imports this file and never the other way round).
 */
export const draftsSlice: StateCreator<DraftsSlice & NoticeSlice & { settings?: SettingsView }, [], [], DraftsSlice> = (
  set,
  get,
) => ({
  drafts: [],
  refused: [],
  selected: new Set(),
  inspecting: false,
  lastPlacement: null,
  lastTypeFor: {},
  async inspect(paths) {
    if (paths.length === 0) return;
    const callId = crypto.randomUUID();
    set({ inspecting: true, inspectCall: callId });
    try {
      const result = await unwrap(api['files.inspect'](paths, { callId }));
      const known = new Set(get().drafts.map((d) => d.proposal.key));
      const fresh = result.captures
        .filter((c) => !known.has(c.key))
        .map((proposal) => ({ proposal, form: { type: 'interior' as const, capturedAt: proposal.capturedAt } }));
      // A new card after the last one was registered starts a new list; otherwise it adds to it.
      const earlier = get().drafts.some(isRegistrable) ? get().refused : [];
      const seen = new Set(earlier.map((r) => `${r.path}\u0000${r.reason}`));
      const refused = result.refused.filter((r) => !seen.has(`${r.path}\u0000${r.reason}`));
      const drafts = get().drafts.some(isRegistrable) ? get().drafts : [];
      set({ drafts: [...drafts, ...fresh].sort(order), refused: [...earlier, ...refused] });
      void get().loadLastPlacement();
    } catch (err) {
      // A stop the person asked for is not a failure: the list is as it was before the drop.
      if (messageOf(err) === CANCELLED)
        get().notify(
          'info',
          `Reading stopped: nothing was added from the ${paths.length === 1 ? 'item' : `${paths.length} items`} dropped.`,
        );
      else get().notify('error', messageOf(err));
    } finally {
      set({ inspecting: false, inspectCall: undefined });
    }
  },
  stopInspect() {
    const callId = get().inspectCall;
    if (callId) void api.cancel(callId);
  },
  toggleDraft(key, range) {
    const { drafts, selected, anchor } = get();
    const on = !selected.has(key);
    const keys = drafts.filter(isRegistrable).map((d) => d.proposal.key);
    const from = range && anchor !== undefined ? keys.indexOf(anchor) : -1;
    const to = keys.indexOf(key);
    const span = from >= 0 ? keys.slice(Math.min(from, to), Math.max(from, to) + 1) : [key];
    get().selectDrafts(span, on);
    set({ anchor: key });
  },
  extendTo(from, to, order) {
    const known = get().anchor;
    const anchor = known !== undefined && order.includes(known) ? known : from;
    const span = (end: string) => {
      const [a, b] = [order.indexOf(anchor), order.indexOf(end)];
      return a < 0 || b < 0 ? [] : order.slice(Math.min(a, b), Math.max(a, b) + 1);
    };
    const next = new Set(get().selected);
    for (const k of span(from)) next.delete(k);
    for (const k of span(to)) next.add(k);
    set({ selected: next, anchor });
  },
  selectDrafts(keys, on) {
    const next = new Set(get().selected);
    for (const k of keys) {
      if (on) next.add(k);
      else next.delete(k);
    }
    set({ selected: next });
  },
  applyToSelected(change) {
    const keys = [...get().selected];
    get().applyTo(keys, change);
    const remembered =
      change.structure && change.type ? { ...get().lastTypeFor, [change.structure]: change.type } : get().lastTypeFor;
    set({ selected: new Set(), anchor: undefined, lastTypeFor: remembered });
    return keys.length;
  },
  applyTo(keys, change) {
    const chosen = new Set(keys);
    set({
      drafts: get().drafts.map((d) => (chosen.has(d.proposal.key) ? { ...d, form: { ...d.form, ...change } } : d)),
    });
  },
  shiftSelected(shift) {
    const { drafts, selected } = get();
    const chosen = drafts.filter((d) => selected.has(d.proposal.key));
    const moved = shiftTimes(
      chosen.map((d) => d.form.capturedAt),
      shift,
    );
    const byKey = new Map(chosen.map((d, i) => [d.proposal.key, moved[i]!]));
    set({
      drafts: drafts.map((d) =>
        byKey.has(d.proposal.key) ? { ...d, form: { ...d.form, capturedAt: byKey.get(d.proposal.key)! } } : d,
      ),
      selected: new Set(),
      anchor: undefined,
    });
    return chosen.length;
  },
  setCapturedAt(key, iso) {
    set({
      drafts: get().drafts.map((d) => (d.proposal.key === key ? { ...d, form: { ...d.form, capturedAt: iso } } : d)),
    });
  },
  discardSelected() {
    const { selected } = get();
    set({ drafts: get().drafts.filter((d) => !selected.has(d.proposal.key)), selected: new Set(), anchor: undefined });
  },
  clearDrafts() {
    set({ drafts: [], refused: [], selected: new Set(), anchor: undefined });
  },
  async registerDrafts() {
    const structures = get().settings?.structures ?? [];
    const ready = get().drafts.filter((d) => isReady(d, structures));
    if (ready.length === 0) return;
    try {
      const forms = ready.map((d) => ({
        structure: d.form.structure!,
        design: d.form.design,
        type: d.form.type,
        capturedAt: d.form.capturedAt,
        paths: d.proposal.files.map((f) => f.path),
        ...(d.proposal.warnings?.length ? { warnings: d.proposal.warnings } : {}),
      }));
      const res = await unwrap(api['captures.register'](forms));
      const keys = new Set(ready.map((d) => d.proposal.key));
      const selected = new Set([...get().selected].filter((k) => !keys.has(k)));
      set({
        drafts: get().drafts.filter((d) => !keys.has(d.proposal.key)),
        selected,
        refused: [...get().refused, ...res.refused],
      });
      // No message: the queue shows the new captures (main's rows events), "Registering" until each
      // is registered; messages are kept for what needs a person. Nothing is reloaded here.
      void get().loadLastPlacement();
    } catch (err) {
      get().notify('error', messageOf(err));
    }
  },
  async loadLastPlacement() {
    try {
      set({ lastPlacement: await unwrap(api['captures.lastPlacement']()) });
    } catch {
      // Only an offer: without it the person chooses the place, as on the first card.
      set({ lastPlacement: null });
    }
  },
});
