import type { StateCreator } from 'zustand';
import type { CapturePlan, PlanView } from '../../shared/capture-plan.js';
import { api, unwrap } from './api.js';
import type { NoticeSlice } from './notices-slice.js';

/**
 * The capture plan's slice of the one store (store.ts): the plan as the upload service keeps it in
 * the queue (shared/capture-plan.ts), read when a card is listed and when the Plan panel opens,
 * saved whole from the panel, and followed by `capture:event.plan`; each change places again the
 * captures listed that no person placed (drafts-slice.ts applyPlan).
 */
export interface PlanSlice {
  /** The plan as stored, or null before it was read. */
  plan: PlanView | null;
  /** Reads the plan; a failure keeps the plan known (an empty one at first) and is said only by the panel. */
  loadPlan(): Promise<void>;
  /** Saves the whole plan; answers the error's message when it was refused, else undefined. */
  savePlan(plan: CapturePlan): Promise<string | undefined>;
  /** Puts the plan the service sent in place and places the listed captures by it. */
  applyPlanView(plan: PlanView): void;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The plan's slice over the narrowest state it needs: its own fields and the registration step it
 * places (drafts-slice.ts applyPlan, named here so that file imports this one and never the other way round).
 */
export const planSlice: StateCreator<PlanSlice & { applyPlan(): void } & NoticeSlice, [], [], PlanSlice> = (
  set,
  get,
) => ({
  plan: null,
  async loadPlan() {
    try {
      set({ plan: await unwrap(api['plan.get']()) });
    } catch {
      // Without a plan the card is placed by a person, as before there was one.
      if (!get().plan) set({ plan: { autoRegister: false, days: [], updatedAt: null } });
    }
  },
  async savePlan(plan) {
    try {
      get().applyPlanView(await unwrap(api['plan.save'](plan)));
      return undefined;
    } catch (err) {
      return messageOf(err);
    }
  },
  applyPlanView(plan) {
    set({ plan });
    get().applyPlan();
  },
});

/** Follows `capture:event.plan` into the slice `get` reads (a save from another window); answers the function that stops. */
export function followPlanEvents(get: () => PlanSlice): () => void {
  return api.on('capture:event.plan', (p) => get().applyPlanView(p));
}
