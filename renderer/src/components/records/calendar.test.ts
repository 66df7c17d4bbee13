import { describe, expect, it } from 'vitest';
import { dayForKey } from './calendar.js';

// The calendar's keys, after WAI-ARIA's date grid: dates without a zone, YYYY-MM-DD.
const DAYS_AND_WEEKS = 'moves a day with Left/Right and a week with Up/Down, across months and years';
const WEEK_ENDS = 'goes to the Monday and the Sunday of the week with Home and End';
const MONTHS = "moves a month with Page Up/Down (a year with Shift), keeping the day or the month's last";

/** Each move: the test it belongs to, the day it starts from, the key (with Shift or not) and the day it lands on. */
const MOVES: [test: string, from: string, key: string, to: string, shift?: boolean][] = [
  [DAYS_AND_WEEKS, '2026-11-25', 'ArrowRight', '2026-11-26'],
  [DAYS_AND_WEEKS, '2026-11-01', 'ArrowLeft', '2026-10-31'],
  [DAYS_AND_WEEKS, '2026-11-25', 'ArrowDown', '2026-12-02'],
  [DAYS_AND_WEEKS, '2026-01-03', 'ArrowUp', '2025-12-27'],
  [DAYS_AND_WEEKS, '2028-02-28', 'ArrowRight', '2028-02-29'],
  // 2026-11-25 is a Wednesday; the week runs Monday 23rd to Sunday 29th.
  [WEEK_ENDS, '2026-11-25', 'Home', '2026-11-23'],
  [WEEK_ENDS, '2026-11-25', 'End', '2026-11-29'],
  [WEEK_ENDS, '2026-11-23', 'Home', '2026-11-23'],
  [WEEK_ENDS, '2026-11-29', 'End', '2026-11-29'],
  // A week across a month's end.
  [WEEK_ENDS, '2026-12-01', 'Home', '2026-11-30'],
  [MONTHS, '2026-11-25', 'PageDown', '2026-12-25'],
  [MONTHS, '2026-01-31', 'PageDown', '2026-02-28'],
  [MONTHS, '2026-03-31', 'PageUp', '2026-02-28'],
  [MONTHS, '2026-12-15', 'PageDown', '2027-01-15'],
  [MONTHS, '2028-02-29', 'PageDown', '2029-02-28', true],
  [MONTHS, '2026-11-25', 'PageUp', '2025-11-25', true],
];

describe('dayForKey', () => {
  for (const test of [DAYS_AND_WEEKS, WEEK_ENDS, MONTHS]) {
    it(test, () => {
      for (const [, from, key, to, shift] of MOVES.filter((m) => m[0] === test))
        expect(dayForKey(from, key, shift), `${from} ${shift ? 'Shift+' : ''}${key}`).toBe(to);
    });
  }

  it('answers null for any other key', () => {
    expect(dayForKey('2026-11-25', 'Enter')).toBeNull();
    expect(dayForKey('2026-11-25', 'a')).toBeNull();
  });
});
