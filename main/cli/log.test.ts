import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../queue/activity.js';
import { activityLine } from './log.js';

// `log` lines in the one time format: the locale's own clock, to the second (several
// lines share a minute), the date only when not today.
const entry = (at: string): ActivityEntry => ({
  id: 1,
  at,
  captureRow: null,
  fileId: 3,
  subject: 'a.insv',
  kind: 'retry-scheduled',
  message: 'storage unavailable',
});

describe('activityLine', () => {
  const now = new Date('2026-11-25T20:00:00').getTime();
  const today = new Date('2026-11-25T19:42:05').toISOString();
  const yesterday = new Date('2026-11-24T23:05:09').toISOString();

  it('writes the time as the locale does, to the second, with the date when not today', () => {
    expect(activityLine(entry(today), { now, locale: 'en-US' })).toMatch(
      /^7:42:05 PM {2}retry-scheduled +file 3 +a\.insv: storage unavailable$/,
    );
    expect(activityLine(entry(today), { now, locale: 'en-GB' })).toMatch(/^19:42:05 {2}retry-scheduled /);
    expect(activityLine(entry(yesterday), { now, locale: 'en-GB' })).toMatch(/^24 Nov 23:05:09 {2}retry-scheduled /);
    expect(activityLine(entry(yesterday), { now, locale: 'en-US' })).toMatch(/^Nov 24 11:05:09 PM {2}retry-scheduled /);
  });
});
