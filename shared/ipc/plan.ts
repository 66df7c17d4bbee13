import { z } from 'zod';
import { capturePlan, planView } from '../capture-plan.js';
import { lastPlacement } from './upload.js';

// The capture plan's channels and event of the IPC contract (shared/ipc.ts spreads them into its
// maps); the plan's schema and rules are shared/capture-plan.ts.

/** The channels of the Plan panel (spread into shared/ipc.ts `channels`). */
export const planChannels = {
  /** The capture plan kept in the queue (main/queue/plans.ts); an empty plan before the app is set up. */
  'capture:plan.get': { args: z.void(), result: planView },
  /**
   * Replaces the whole plan and answers it as stored; `capture:event.plan` tells every window.
   * Refuses a plan that names one camera and day twice, and saving before the app is set up.
   */
  'capture:plan.save': { args: capturePlan, result: planView },
  /**
   * The registration table's recent places: where this project's captures went, the most recent
   * first, one per structure and design with the type last used there (main/queue/reader.ts
   * recentPlacements); [] before the app is set up.
   */
  'capture:captures.recentPlaces': { args: z.void(), result: z.array(lastPlacement) },
} as const;

/** The plan's event (spread into shared/ipc.ts `events`). */
export const planEvents = {
  /** The plan was saved: the whole plan as stored, applied at once to the captures not registered yet. */
  'capture:event.plan': planView,
} as const;
