import { describe, expect, it } from 'vitest';
import { parseShift, shiftTimes } from './time-shift.js';

describe('time shift for a selection', () => {
  it('reads +01:00, −1 day, -30 min and "first 09:12"; refuses anything else', () => {
    expect(parseShift('+01:00')).toEqual({ kind: 'by', ms: 3_600_000 });
    expect(parseShift('−1 day')).toEqual({ kind: 'by', ms: -86_400_000 });
    expect(parseShift('-30 min')).toEqual({ kind: 'by', ms: -1_800_000 });
    expect(parseShift('first 09:12')).toEqual({ kind: 'first', hh: 9, mm: 12, ss: 0 });
    expect(parseShift('09:12')).toEqual({ kind: 'first', hh: 9, mm: 12, ss: 0 });
    for (const bad of ['', 'tomorrow', '+1 fortnight', '25:00', '+00:00']) expect(parseShift(bad)).toBeNull();
  });

  it('shifts each time in its own zone, and "first" keeps the gaps', () => {
    const times = ['2026-11-22T10:05:00+01:00', '2026-11-22T10:00:00+01:00', '2026-11-22T09:20:30Z'];
    expect(shiftTimes(times, parseShift('+01:00')!)).toEqual([
      '2026-11-22T11:05:00+01:00',
      '2026-11-22T11:00:00+01:00',
      '2026-11-22T10:20:30Z',
    ]);
    expect(shiftTimes(times, parseShift('-1 day')!)).toEqual([
      '2026-11-21T10:05:00+01:00',
      '2026-11-21T10:00:00+01:00',
      '2026-11-21T09:20:30Z',
    ]);
    // The earliest is 10:00+01:00; set to 09:12 local, everything moves 48 min back.
    expect(shiftTimes(times, parseShift('first 09:12')!)).toEqual([
      '2026-11-22T09:17:00+01:00',
      '2026-11-22T09:12:00+01:00',
      '2026-11-22T08:32:30Z',
    ]);
  });
});
