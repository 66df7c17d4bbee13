import { describe, expect, it } from 'vitest';
import { dayForKey } from './calendar.js';

// The calendar's keys, after WAI-ARIA's date grid: dates without a zone, YYYY-MM-DD.
describe('dayForKey', () => {
  it('moves a day with Left/Right and a week with Up/Down, across months and years', () => {
    expect(dayForKey('2026-11-25', 'ArrowRight')).toBe('2026-11-26');
    expect(dayForKey('2026-11-01', 'ArrowLeft')).toBe('2026-10-31');
    expect(dayForKey('2026-11-25', 'ArrowDown')).toBe('2026-12-02');
    expect(dayForKey('2026-01-03', 'ArrowUp')).toBe('2025-12-27');
    expect(dayForKey('2028-02-28', 'ArrowRight')).toBe('2028-02-29');
  });

  it('goes to the Monday and the Sunday of the week with Home and End', () => {
    // 2026-11-25 is a Wednesday; the week runs Monday 23rd to Sunday 29th.
    expect(dayForKey('2026-11-25', 'Home')).toBe('2026-11-23');
    expect(dayForKey('2026-11-25', 'End')).toBe('2026-11-29');
    expect(dayForKey('2026-11-23', 'Home')).toBe('2026-11-23');
    expect(dayForKey('2026-11-29', 'End')).toBe('2026-11-29');
    // A week across a month's end.
    expect(dayForKey('2026-12-01', 'Home')).toBe('2026-11-30');
  });

  it("moves a month with Page Up/Down (a year with Shift), keeping the day or the month's last", () => {
    expect(dayForKey('2026-11-25', 'PageDown')).toBe('2026-12-25');
    expect(dayForKey('2026-01-31', 'PageDown')).toBe('2026-02-28');
    expect(dayForKey('2026-03-31', 'PageUp')).toBe('2026-02-28');
    expect(dayForKey('2026-12-15', 'PageDown')).toBe('2027-01-15');
    expect(dayForKey('2028-02-29', 'PageDown', true)).toBe('2029-02-28');
    expect(dayForKey('2026-11-25', 'PageUp', true)).toBe('2025-11-25');
  });

  it('answers null for any other key', () => {
    expect(dayForKey('2026-11-25', 'Enter')).toBeNull();
    expect(dayForKey('2026-11-25', 'a')).toBeNull();
  });
});
