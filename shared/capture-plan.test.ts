import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapturePlan, PlanRecording, PlanWalk } from './capture-plan.js';
import { capturePlan, describePlanDay, localDay, matchPlan, planDayFor, weekdayOf } from './capture-plan.js';
import { setTimeLocale } from './night-summary.js';

// Matching a card to the capture plan: the card's site walks (gaps over 30 minutes) of one camera
// and day take the plan's walks of that day one for one, in time order; what does not match is
// said with the walks concerned. Times are the computer's: Berlin here, the sentences in en-GB.

const tz = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'Europe/Berlin';
  setTimeLocale('en-GB');
});
afterAll(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
  setTimeLocale(undefined);
});

const CAMERA = 'IAEAN00000XXXX';
const walk = (structure: string, design: string, type: PlanWalk['type'] = 'interior'): PlanWalk => ({
  structure,
  design,
  type,
});
const FOUR = [walk('ta', 'l1'), walk('ta', 'roof', 'exterior'), walk('tb', 'l1'), walk('tb', 'l2')];
const names: Record<string, string> = { ta: 'Tower A', tb: 'Tower B', l1: 'Level 1', l2: 'Level 2', roof: 'Roof' };
const words = (now: number) => ({
  nameOf: (w: PlanWalk) => `${names[w.structure]} · ${names[w.design!]} (${w.type})`,
  now,
});

/** Monday 23 Nov 2026 (local). */
const monday = (h: number, m: number) => new Date(2026, 10, 23, h, m).getTime();
/** `counts[i]` recordings a minute apart for walk i, the walks two hours apart from 08:00, by `camera`. */
function card(counts: number[], camera: string | undefined = CAMERA, at = monday): PlanRecording[] {
  return counts.flatMap((n, w) =>
    Array.from({ length: n }, (_, i) => ({ key: `${camera}-${w}-${i}`, at: at(8 + 2 * w, i), camera })),
  );
}
const plan = (days: CapturePlan['days']): CapturePlan => ({ autoRegister: false, days });
const evening = monday(19, 0);

describe('a card that matches its camera’s plan for the day', () => {
  it('places each walk as the plan says, in time order, and is complete', () => {
    const recordings = card([30, 20, 25, 25]);
    const m = matchPlan(recordings, plan([{ camera: CAMERA, day: 'monday', walks: FOUR }]), words(evening));
    expect(m.problems).toEqual([]);
    expect(m.complete).toBe(true);
    expect(m.matched).toEqual([`Camera ${CAMERA}, today: 4 walks as planned`]);
    expect(m.placements.size).toBe(100);
    const where = (w: number, i: number) => m.placements.get(`${CAMERA}-${w}-${i}`)!;
    expect(
      [where(0, 0), where(0, 29), where(1, 0), where(2, 7), where(3, 24)].map((p) => [p.planWalk, p.walk]),
    ).toEqual([
      [1, FOUR[0]],
      [1, FOUR[0]],
      [2, FOUR[1]],
      [3, FOUR[2]],
      [4, FOUR[3]],
    ]);
  });

  it('in any order of the recordings given: walks go by recorded time', () => {
    const recordings = card([3, 3, 3, 3]).reverse();
    const m = matchPlan(recordings, plan([{ camera: CAMERA, day: '2026-11-23', walks: FOUR }]), words(evening));
    expect(m.complete).toBe(true);
    expect(m.placements.get(`${CAMERA}-0-2`)!.walk).toEqual(FOUR[0]);
    expect(m.placements.get(`${CAMERA}-3-0`)!.walk).toEqual(FOUR[3]);
  });
});

describe('a card that does not match: what can be placed is, and the rest is named', () => {
  it('a walk more than the plan has', () => {
    const m = matchPlan(card([5, 5, 5, 5, 5]), plan([{ camera: CAMERA, day: 'monday', walks: FOUR }]), words(evening));
    expect(m.complete).toBe(false);
    expect(m.problems).toEqual([
      `Walk 5 (16:00–16:04) has no place in today's plan for camera ${CAMERA}: it plans 4 walks.`,
    ]);
    expect(m.placements.size).toBe(20);
  });

  it('a walk fewer than the plan has', () => {
    const m = matchPlan(card([5, 5, 5]), plan([{ camera: CAMERA, day: 'monday', walks: FOUR }]), words(evening));
    expect(m.complete).toBe(false);
    expect(m.problems).toEqual([
      `Today's plan for camera ${CAMERA} has 4 walks; the card has 3: placed as its first 3, check them. Its walk 4 (Tower B · Level 2 (interior)) has no recordings.`,
    ]);
    expect(m.placements.size).toBe(15);
  });

  it('a camera with no plan', () => {
    const m = matchPlan(
      card([5, 5], 'IAEAN99999ZZZZ'),
      plan([{ camera: CAMERA, day: 'monday', walks: FOUR }]),
      words(evening),
    );
    expect(m.problems).toEqual(['Camera IAEAN99999ZZZZ has no plan for today: walks 1–2 (10 captures) not placed.']);
    expect(m.placements.size).toBe(0);
  });

  it('a day without one, said by its date when it is not today', () => {
    const tuesdayEvening = new Date(2026, 10, 24, 19, 0).getTime();
    const m = matchPlan(card([5]), plan([{ camera: CAMERA, day: 'friday', walks: FOUR }]), words(tuesdayEvening));
    expect(m.problems).toEqual([`Camera ${CAMERA} has no plan for Monday 23 Nov: walk 1 (5 captures) not placed.`]);
  });

  it('a recording without a time is not placed, and said', () => {
    const recordings = [...card([2, 2, 2, 2]), { key: 'x', at: NaN, camera: CAMERA }];
    const m = matchPlan(recordings, plan([{ camera: CAMERA, day: 'monday', walks: FOUR }]), words(evening));
    expect(m.complete).toBe(false);
    expect(m.problems).toEqual(['1 recording with no recording time: not placed by the plan.']);
    expect(m.placements.size).toBe(8);
  });
});

describe("the plan's day for a camera and date", () => {
  const days: CapturePlan['days'] = [
    { camera: null, day: 'weekdays', walks: [walk('any', 'weekdays')] },
    { camera: null, day: 'monday', walks: [walk('any', 'monday')] },
    { camera: CAMERA, day: 'weekdays', walks: [walk('cam', 'weekdays')] },
    { camera: CAMERA, day: 'monday', walks: [walk('cam', 'monday')] },
    { camera: CAMERA, day: '2026-11-23', walks: [walk('cam', 'date')] },
  ];
  const found = (camera: string | undefined, ymd: string, of = days) => planDayFor({ days: of }, camera, ymd)?.walks[0];
  it('the most particular first: this camera on the date, its weekday, weekdays; then any camera the same way', () => {
    expect(found(CAMERA, '2026-11-23')).toEqual(walk('cam', 'date'));
    expect(found(CAMERA, '2026-11-30')).toEqual(walk('cam', 'monday'));
    expect(found(CAMERA, '2026-11-24')).toEqual(walk('cam', 'weekdays'));
    expect(found('OTHER', '2026-11-23')).toEqual(walk('any', 'monday'));
    expect(found(undefined, '2026-11-24')).toEqual(walk('any', 'weekdays'));
    // Weekdays are Monday to Friday: a Saturday has no plan here.
    expect(found(CAMERA, '2026-11-28')).toBeUndefined();
  });

  it('weekdays and local days in the computer’s zone', () => {
    expect(weekdayOf('2026-11-23')).toBe('monday');
    expect(weekdayOf('2026-11-29')).toBe('sunday');
    // 23:30 UTC on Sunday is already Monday in Berlin.
    expect(localDay(Date.parse('2026-11-22T23:30:00Z'))).toBe('2026-11-23');
    expect(describePlanDay('weekdays')).toBe('every weekday (Monday to Friday)');
    expect(describePlanDay('friday')).toBe('every Friday');
  });
});

describe('the plan as written (JSON in and out)', () => {
  it('refuses the same camera and day twice, naming both', () => {
    const r = capturePlan.safeParse({
      days: [
        { camera: CAMERA, day: 'monday', walks: FOUR },
        { camera: CAMERA, day: 'monday', walks: FOUR },
      ],
    });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]).toMatchObject({
      path: ['days', 1],
      message: `the same camera and day as days[0] (${CAMERA}, monday): write each once`,
    });
  });

  it('refuses a day that is neither a date, a weekday nor weekdays, and a walk without a type', () => {
    const r = capturePlan.safeParse({
      days: [{ camera: null, day: 'someday', walks: [{ structure: 's1' }] }],
    });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toEqual(['days.0.day', 'days.0.walks.0.type']);
  });

  it('takes a plan without autoRegister as off', () => {
    expect(capturePlan.parse({ days: [] })).toEqual({ autoRegister: false, days: [] });
  });
});
