import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { AppTest } from './harness.js';
import { mountWalks } from './card-files.js';

/**
 * The card of an operator's routine day, for the placement tests: 100 recordings in four site walks
 * on two structures, the types differing (the roof is exterior), the camera an hour slow (so the
 * whole card is shifted +1 h), recorded on Monday 23 Nov 2026; an `.mp4` recorded at the end of the
 * last walk, and a second copy of it at another path of the card (registered once: the confirmation
 * counts 100); previews beside every recording and a MISC folder. Recordings are random bytes.
 */
export const ROUTINE_WALKS = [
  { start: new Date(2026, 10, 23, 8, 0, 0), count: 30, place: 'Tower A · Level 1', type: 'interior', typed: 'a1' },
  { start: new Date(2026, 10, 23, 9, 30, 0), count: 20, place: 'Tower A · Roof', type: 'exterior', typed: 'are' },
  { start: new Date(2026, 10, 23, 11, 0, 0), count: 25, place: 'Tower B · Level 1', type: 'interior', typed: 'b1' },
  // 24 recordings and the .mp4.
  { start: new Date(2026, 10, 23, 13, 0, 0), count: 24, place: 'Tower B · Level 2', type: 'interior', typed: 'b2' },
] as const;

/** Mounts the routine card as `X4_SITE` under the test's mount folder (useApp with `mounts`); answers its root. */
export function mountRoutineCard(app: Pick<AppTest, 'work' | 'mounts'>): string {
  const mp4 = randomBytes(4096);
  const at = new Date(2026, 10, 23, 13, 30, 0);
  return mountWalks(
    join(app.work, 'staging'),
    app.mounts,
    'X4_SITE',
    ROUTINE_WALKS.map((w) => ({ start: w.start, count: w.count, stepS: 60 })),
    [
      { path: 'walk-1330.mp4', bytes: mp4, mtime: at },
      { path: join('copied-again', 'walk-1330.mp4'), bytes: mp4, mtime: at },
    ],
  );
}

/** The option of a walk's list a place and type name ("Tower A · Level 1 · interior"). */
export const choiceOf = (w: (typeof ROUTINE_WALKS)[number]) => `${w.place} · ${w.type}`;
