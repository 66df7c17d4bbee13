import type { StateCreator } from 'zustand';
import { matchPlan, placementOfWalk } from '../../shared/capture-plan.js';
import type { LastPlacement, SettingsView } from '../../shared/ipc.js';
import { CANCELLED } from '../../shared/ipc.js';
import type { TimeShift } from '../../shared/time-shift.js';
import { shiftTimes } from '../../shared/time-shift.js';
import { api, unwrap } from './api.js';
import type { DraftCapture, DraftForm, PlaceChoice } from './placement.js';
import { isReady, isRegistrable, nameOfPlacement, placeKeyOf } from './placement.js';
import type { NoticeSlice } from './notices-slice.js';
import type { PlanSlice } from './plan-slice.js';

/**
 * What the capture plan made of the captures listed (shared/capture-plan.ts matchPlan): whether
 * it placed every one (`complete`: one "Register and upload" registers the card), the camera days
 * it matched, what it could not place, and how many it placed.
 */
export interface PlanMatchView {
  complete: boolean;
  matched: string[];
  problems: string[];
  placed: number;
}

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
   * or every registrable capture when none is selected, each in its own zone, then clears the
   * selection; answers how many moved.
   */
  shiftSelected(shift: TimeShift): number;
  /**
   * The type last chosen in this window for each structure id and each structure and design
   * (placement.ts placeKeyOf), offered as such, never a silent default.
   */
  lastTypeFor: Readonly<Record<string, 'interior' | 'exterior'>>;
  /** The recent places, the most recent first (captures.recentPlaces, then this window's choices). */
  recentPlaces: LastPlacement[];
  /** Reads the recent places from the queue; without them the lists start with every place. */
  loadRecentPlaces(): Promise<void>;
  /**
   * Places a walk (`keys`, its captures) in one action: the choice's structure · design and type
   * together; remembers the type for that place and puts it first among the recent places.
   * Answers how many captures changed; `placeNote` says it.
   */
  placeWalk(keys: readonly string[], choice: PlaceChoice, walk: number): number;
  /** What the last placement of a walk did, for a live region ("Tower A · Level 1 (interior) set on 30 captures of site walk 1."). */
  placeNote: string;
  /** What the capture plan made of the captures listed, or null when there is no plan (or nothing listed). */
  planMatch: PlanMatchView | null;
  /**
   * The captures of this list registered already, as the plan sees them (key, recorded time,
   * camera): a card's walks are matched whole, so a plan changed after part of the card was
   * registered places the rest as walks of the same card, never as a new one. Emptied with the list.
   */
  registeredOfCard: { key: string; at: number; camera?: string }[];
  /**
   * Places by the capture plan (plan-slice.ts) every registrable capture no person placed: those it
   * matches get the plan's place, those it placed before and no longer matches lose it; a place a
   * person chose is never moved. Run when captures are listed, when their times change and when
   * the plan changes.
   */
  applyPlan(): void;
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
export const draftsSlice: StateCreator<
  DraftsSlice & NoticeSlice & { settings?: SettingsView } & Pick<PlanSlice, 'plan' | 'loadPlan'>,
  [],
  [],
  DraftsSlice
> = (set, get) => ({
  drafts: [],
  refused: [],
  selected: new Set(),
  inspecting: false,
  lastPlacement: null,
  lastTypeFor: {},
  recentPlaces: [],
  placeNote: '',
  planMatch: null,
  registeredOfCard: [],
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
      // The plan as it is now (the office may have changed it from the command line): the card is
      // listed and placed by it in one change, so a card the plan places whole opens placed.
      await get().loadPlan();
      const drafts = get().drafts.some(isRegistrable) ? get().drafts : [];
      const registeredOfCard = get().drafts.some(isRegistrable) ? get().registeredOfCard : [];
      set({ drafts: [...drafts, ...fresh].sort(order), refused: [...earlier, ...refused], registeredOfCard });
      get().applyPlan();
      void get().loadLastPlacement();
      void get().loadRecentPlaces();
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
      change.structure && change.type
        ? {
            ...get().lastTypeFor,
            [change.structure]: change.type,
            [placeKeyOf({ structure: change.structure, design: change.design })]: change.type,
          }
        : get().lastTypeFor;
    set({ selected: new Set(), anchor: undefined, lastTypeFor: remembered });
    return keys.length;
  },
  applyTo(keys, change) {
    const chosen = new Set(keys);
    set({
      drafts: get().drafts.map((d) =>
        chosen.has(d.proposal.key) ? { ...d, form: { ...d.form, ...change }, placedBy: 'person' as const } : d,
      ),
    });
  },
  placeWalk(keys, choice, walk) {
    const place = { structure: choice.structure, design: choice.design, type: choice.type };
    get().applyTo(keys, place);
    const key = placeKeyOf(place);
    const recent = [
      { structure: place.structure, ...(place.design ? { design: place.design } : {}), type: place.type },
      ...get().recentPlaces.filter((r) => placeKeyOf(r) !== key),
    ].slice(0, 8);
    const name = nameOfPlacement(get().settings?.structures ?? [], place) ?? choice.label;
    set({
      lastTypeFor: { ...get().lastTypeFor, [place.structure]: place.type, [key]: place.type },
      recentPlaces: recent,
      placeNote: `${name} (${place.type}) set on ${keys.length} capture${keys.length === 1 ? '' : 's'} of site walk ${walk}.`,
    });
    return keys.length;
  },
  async loadRecentPlaces() {
    try {
      const stored = await unwrap(api['captures.recentPlaces']());
      // This window's choices stay first; the queue's follow.
      const mine = get().recentPlaces;
      const keys = new Set(mine.map(placeKeyOf));
      set({ recentPlaces: [...mine, ...stored.filter((r) => !keys.has(placeKeyOf(r)))].slice(0, 8) });
    } catch {
      // Only an offer: without them every place is listed.
    }
  },
  applyPlan() {
    const plan = get().plan;
    const structures = get().settings?.structures ?? [];
    const drafts = get().drafts;
    const listed = drafts.filter(isRegistrable);
    if (!plan || plan.days.length === 0 || listed.length === 0) {
      // No plan (or cleared): what it placed is unplaced again; a person's places stay.
      const unplaced = drafts.map((d) =>
        d.placedBy === 'plan'
          ? { ...d, placedBy: undefined, form: { ...d.form, structure: undefined, design: undefined } }
          : d,
      );
      set({ planMatch: null, ...(unplaced.some((d, i) => d !== drafts[i]) ? { drafts: unplaced } : {}) });
      return;
    }
    const match = matchPlan(
      [
        ...get().registeredOfCard,
        ...listed.map((d) => ({
          key: d.proposal.key,
          at: Date.parse(d.form.capturedAt),
          camera: d.proposal.media.camera?.serialNumber,
        })),
      ],
      plan,
      { nameOf: (w) => `${nameOfPlacement(structures, w) ?? `structure ${w.structure}`} (${w.type})` },
    );
    let placed = 0;
    const next = drafts.map((d) => {
      if (d.placedBy === 'person' || !isRegistrable(d)) return d;
      const p = match.placements.get(d.proposal.key);
      if (p) {
        placed++;
        return { ...d, placedBy: 'plan' as const, form: { ...d.form, design: undefined, ...placementOfWalk(p.walk) } };
      }
      return d.placedBy === 'plan'
        ? { ...d, placedBy: undefined, form: { ...d.form, structure: undefined, design: undefined } }
        : d;
    });
    set({
      drafts: next,
      planMatch: { complete: match.complete, matched: match.matched, problems: match.problems, placed },
    });
  },
  shiftSelected(shift) {
    const { drafts, selected } = get();
    // Nothing selected: the whole card (a camera an hour slow is slow for every recording).
    const chosen = drafts.filter((d) => (selected.size ? selected.has(d.proposal.key) : isRegistrable(d)));
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
    // The day and the walks follow the times: the plan places them again.
    get().applyPlan();
    return chosen.length;
  },
  setCapturedAt(key, iso) {
    set({
      drafts: get().drafts.map((d) => (d.proposal.key === key ? { ...d, form: { ...d.form, capturedAt: iso } } : d)),
    });
    get().applyPlan();
  },
  discardSelected() {
    const { selected } = get();
    set({ drafts: get().drafts.filter((d) => !selected.has(d.proposal.key)), selected: new Set(), anchor: undefined });
  },
  clearDrafts() {
    set({
      drafts: [],
      refused: [],
      selected: new Set(),
      anchor: undefined,
      planMatch: null,
      placeNote: '',
      registeredOfCard: [],
    });
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
        registeredOfCard: [
          ...get().registeredOfCard,
          ...ready.map((d) => ({
            key: d.proposal.key,
            at: Date.parse(d.form.capturedAt),
            camera: d.proposal.media.camera?.serialNumber,
          })),
        ],
      });
      // What is left is placed by the plan as the rest of the same card.
      get().applyPlan();
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
