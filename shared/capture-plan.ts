import { z } from 'zod';
import { localTime } from './night-summary.js';
import type { Placement } from './registration.js';
import { groupIntoWalks } from './registration.js';
import { localDate } from './when.js';

// The capture plan: a site's routine walks written ahead of time, per camera and per day, so a card
// that matches them is placed by itself (docs/decisions/0038-capture-plan.md). Pure: the window, the
// upload service and the CLI match a card with the same code.

/** The days of the week as a plan names them, Monday first (ISO 8601's order). */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
/** A plan's weekday. */
export type Weekday = (typeof WEEKDAYS)[number];

/** One walk of a plan: where its recordings go (capture-upload-interface.md §4.4 ids: structure, design, type). */
const planWalk = z.object({
  structure: z.string().trim().min(1).max(200),
  design: z.string().trim().min(1).max(200).optional(),
  type: z.enum(['interior', 'exterior']),
});
export type PlanWalk = z.infer<typeof planWalk>;

/**
 * One day of the plan for one camera: `camera` the serial number the Insta360 trailer gives
 * (`SerialNumber`, e.g. `IAEAN00000XXXX`), or null for any camera; `day` a date (YYYY-MM-DD, the
 * computer's local day), a weekday (`monday` … `sunday`: every such day) or `weekdays` (every
 * Monday to Friday); `walks` the site walks of that day in the order they are walked.
 */
const planDay = z.object({
  camera: z.string().trim().min(1).max(100).nullable(),
  day: z.union([
    z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date in YYYY-MM-DD form, a weekday (monday … sunday) or weekdays'),
    z.enum([...WEEKDAYS, 'weekdays']),
  ]),
  walks: z.array(planWalk).min(1, 'at least one walk').max(50),
});
export type PlanDay = z.infer<typeof planDay>;

/**
 * The capture plan: its days, and `autoRegister`: a card whose walks match its camera's plan for
 * the day goes to the queue with no click (imported, placed and registered as soon as it is
 * inserted). One day per camera and `day` at most.
 */
export const capturePlan = z
  .object({
    autoRegister: z.boolean().default(false),
    days: z.array(planDay).max(1000).default([]),
  })
  .superRefine((plan, ctx) => {
    const seen = new Map<string, number>();
    plan.days.forEach((d, i) => {
      const k = `${d.camera ?? ''}\u0000${d.day}`;
      const first = seen.get(k);
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['days', i],
          message: `the same camera and day as days[${first}] (${d.camera ?? 'any camera'}, ${d.day}): write each once`,
        });
      else seen.set(k, i);
    });
  });
export type CapturePlan = z.output<typeof capturePlan>;

/** The plan as stored: the plan and when it was last written (ISO 8601; null when never). */
export const planView = z.object({
  autoRegister: z.boolean(),
  days: z.array(planDay),
  updatedAt: z.string().nullable(),
});
export type PlanView = z.infer<typeof planView>;

/** A plan with nothing in it. */
export const EMPTY_PLAN: CapturePlan = { autoRegister: false, days: [] };

/** `YYYY-MM-DD` of an instant (ms since 1970) in this computer's zone. */
export function localDay(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** The weekday of a local date (YYYY-MM-DD). */
export function weekdayOf(ymd: string): Weekday {
  const [y, m, d] = ymd.split('-').map(Number) as [number, number, number];
  // getDay: 0 is Sunday; WEEKDAYS starts on Monday.
  return WEEKDAYS[(new Date(y, m - 1, d).getDay() + 6) % 7]!;
}

/**
 * The plan's day for a camera on a local date (YYYY-MM-DD), the most particular first: this
 * camera on this date, on this weekday, on weekdays; then any camera on the same three. `camera`
 * undefined (no trailer) finds only the days for any camera. Undefined when there is none.
 */
export function planDayFor(
  plan: Pick<CapturePlan, 'days'>,
  camera: string | undefined,
  ymd: string,
): PlanDay | undefined {
  const weekday = weekdayOf(ymd);
  const workday = WEEKDAYS.indexOf(weekday) < 5;
  for (const who of camera ? [camera, null] : [null])
    for (const day of [ymd, weekday, ...(workday ? ['weekdays'] : [])]) {
      const found = plan.days.find((d) => d.camera === who && d.day === day);
      if (found) return found;
    }
  return undefined;
}

/** One recording as the plan sees it: its key, its recorded time (ms since 1970; NaN when unknown) and its camera's serial number. */
export interface PlanRecording {
  key: string;
  at: number;
  camera?: string;
}

/** Where a recording goes by the plan: the walk, its number in the plan's day (1-based) and that day. */
export interface PlannedPlace {
  walk: PlanWalk;
  /** The walk's place in its plan day, 1-based. */
  planWalk: number;
  day: PlanDay;
}

/** What matching a card to the plan found. */
export interface PlanMatch {
  /** Recording key → where the plan puts it; recordings it could not place are absent. */
  placements: Map<string, PlannedPlace>;
  /** What could not be placed, one sentence each, in the card's order ("Walk 3 (10:42–10:58) has no place in today's plan for camera IAEAN…"). */
  problems: string[];
  /** One line per camera and day the plan placed whole ("Camera IAEAN00000XXXX, today: 4 walks as planned"). */
  matched: string[];
  /** Every recording placed and nothing to say: the card is routine, one confirmation registers it. */
  complete: boolean;
}

/** How the sentences name things: a plan walk's place ("Tower A · Level 1 (interior)"), and the time now (ms) for "today". */
export interface PlanWords {
  nameOf(walk: PlanWalk): string;
  now?: number;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
/** "walk 3", "walks 1–4", "walks 1, 3 and 5". */
function walkList(numbers: readonly number[]): string {
  if (numbers.length === 1) return `walk ${numbers[0]}`;
  const run = numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1);
  if (run) return `walks ${numbers[0]}–${numbers.at(-1)}`;
  return `walks ${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}`;
}

/**
 * Matches a card's recordings to the plan, as the desktop app, the upload service (a card that goes
 * to the queue with no click) and `add --plan` / `import --plan` do. The card's site walks are
 * found as the registration table finds them (shared/registration.ts groupIntoWalks over every
 * recording, by recorded time; a walk holding two cameras' recordings is split by camera, keeping
 * its number), each camera's walks of one local day in time order; the walks of a camera and day
 * take the walks of its plan day (planDayFor) one for one, in order. A camera with no plan that
 * day, a walk more than the plan has and a walk of the plan the card lacks are each said with the
 * walks concerned; what matches is placed all the same, and `complete` is false. Recordings with no
 * recorded time are not placed. Times in the sentences are the computer's local times.
 */
export function matchPlan(
  recordings: readonly PlanRecording[],
  plan: Pick<CapturePlan, 'days'>,
  words: PlanWords,
): PlanMatch {
  const placements = new Map<string, PlannedPlace>();
  const problems: string[] = [];
  const matched: string[] = [];
  const now = words.now ?? Date.now();
  const hm = (ms: number) => localTime(ms, { now: ms });
  const span = (w: { start: number; end: number }) => `${hm(w.start)}–${hm(w.end)}`;
  const timed = recordings.filter((r) => Number.isFinite(r.at));
  const untimed = recordings.length - timed.length;

  // The table's walks, split by camera where two cameras' recordings meet in one.
  type Walk = { number: number; start: number; end: number; items: PlanRecording[]; camera?: string };
  const walks: Walk[] = groupIntoWalks(timed, (r) => r.at).flatMap((w) => {
    const cameras = [...new Set(w.items.map((r) => r.camera))];
    return cameras.map((camera) => {
      const items = w.items.filter((r) => r.camera === camera);
      return { number: w.number, start: items[0]!.at, end: items.at(-1)!.at, items, camera };
    });
  });
  // Each camera's walks of one day, in time order.
  const byCameraDay = new Map<string, { camera?: string; ymd: string; walks: Walk[] }>();
  for (const w of walks) {
    const ymd = localDay(w.start);
    const k = `${w.camera ?? ''}\u0000${ymd}`;
    if (!byCameraDay.has(k)) byCameraDay.set(k, { camera: w.camera, ymd, walks: [] });
    byCameraDay.get(k)!.walks.push(w);
  }
  for (const { camera, ymd, walks: mine } of byCameraDay.values()) {
    const today = ymd === localDay(now);
    const dayWords = today ? 'today' : localDate(ymd, { weekday: true, now });
    const who = camera ? `camera ${camera}` : 'a camera with no serial number (no Insta360 trailer)';
    const day = planDayFor(plan, camera, ymd);
    if (!day) {
      const captures = mine.reduce((n, w) => n + w.items.length, 0);
      problems.push(
        `${who[0]!.toUpperCase()}${who.slice(1)} has no plan for ${dayWords}: ${walkList(mine.map((w) => w.number))} (${plural(captures, 'capture')}) not placed.`,
      );
      continue;
    }
    const planName = `${today ? "today's plan" : `the plan for ${dayWords}`} for ${who}`;
    mine.forEach((w, i) => {
      const walk = day.walks[i];
      if (!walk) {
        problems.push(
          `Walk ${w.number} (${span(w)}) has no place in ${planName}: it plans ${plural(day.walks.length, 'walk')}.`,
        );
        return;
      }
      for (const r of w.items) placements.set(r.key, { walk, planWalk: i + 1, day });
    });
    if (mine.length < day.walks.length) {
      const missing = day.walks.slice(mine.length);
      problems.push(
        `${planName[0]!.toUpperCase()}${planName.slice(1)} has ${plural(day.walks.length, 'walk')}; the card has ${mine.length}: ` +
          `placed as its first ${mine.length}, check them. ${missing
            .map((m, j) => `Its walk ${mine.length + j + 1} (${words.nameOf(m)})`)
            .join(', ')} ${missing.length === 1 ? 'has' : 'have'} no recordings.`,
      );
    } else if (mine.length === day.walks.length)
      matched.push(`${who[0]!.toUpperCase()}${who.slice(1)}, ${dayWords}: ${plural(mine.length, 'walk')} as planned`);
  }
  if (untimed > 0) problems.push(`${plural(untimed, 'recording')} with no recording time: not placed by the plan.`);
  return {
    placements,
    problems,
    matched,
    complete: problems.length === 0 && placements.size === recordings.length && recordings.length > 0,
  };
}

/** A plan walk as a registration's placement (shared/registration.ts Placement). */
export const placementOfWalk = (w: PlanWalk): Placement => ({
  structure: w.structure,
  ...(w.design ? { design: w.design } : {}),
  type: w.type,
});

/** How a plan day's `day` reads: "23 Nov 2026", "every Monday", "every weekday (Monday to Friday)". */
export function describePlanDay(day: PlanDay['day'], now = Date.now()): string {
  if (day === 'weekdays') return 'every weekday (Monday to Friday)';
  if ((WEEKDAYS as readonly string[]).includes(day)) return `every ${day[0]!.toUpperCase()}${day.slice(1)}`;
  return localDate(day, { weekday: true, now });
}
