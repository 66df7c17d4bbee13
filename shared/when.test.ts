import { describe, expect, it } from 'vitest';
import { localTime } from './night-summary.js';
import { localDate, localMonth, whenAt } from './when.js';

// The office screens' one time and date format, the operator summary's own.
const now = new Date(2026, 10, 25, 15, 0).getTime(); // 25 Nov 2026, 15:00 local

describe('whenAt', () => {
  it('is the summary’s localTime: the time today, with the date before it otherwise, in the locale’s clock', () => {
    const today = new Date(2026, 10, 25, 14, 2).toISOString();
    const yesterday = new Date(2026, 10, 24, 9, 5).toISOString();
    expect(whenAt(today, { now, locale: 'en-GB' })).toBe('14:02');
    expect(whenAt(today, { now, locale: 'en-US' })).toBe('2:02 PM');
    expect(whenAt(yesterday, { now, locale: 'en-GB' })).toBe('24 Nov 09:05');
    expect(whenAt(yesterday, { now, locale: 'de-DE' })).toBe(
      localTime(Date.parse(yesterday), { now, locale: 'de-DE' }),
    );
  });
  it('says never for no time and leaves an unreadable one as it is', () => {
    expect(whenAt(null)).toBe('never');
    expect(whenAt('soon')).toBe('soon');
  });
});

describe('localDate', () => {
  it('gives a progress date (YYYY-MM-DD) in the form localTime uses, with the year only when it is not this year', () => {
    expect(localDate('2026-11-24', { now, locale: 'en-GB' })).toBe('24 Nov');
    expect(localDate('2025-12-31', { now, locale: 'en-GB' })).toBe('31 Dec 2025');
    expect(localDate('2026-11-24', { now, locale: 'en-US' })).toBe('Nov 24');
    expect(localDate('2026-11-24', { now, locale: 'en-GB', weekday: true })).toBe('Tuesday 24 Nov');
    // localTime's date part for a time that day is the same words.
    expect(localTime(new Date(2026, 10, 24, 8, 0).getTime(), { now, locale: 'en-GB' })).toBe(
      `${localDate('2026-11-24', { now, locale: 'en-GB' })} 08:00`,
    );
  });
  it('reads an ISO 8601 date-time in local time, and leaves what is not a date as it is', () => {
    expect(localDate(new Date(2026, 10, 20, 23, 30).toISOString(), { now, locale: 'en-GB' })).toBe('20 Nov');
    expect(localDate('not a date')).toBe('not a date');
  });
});

describe('localMonth', () => {
  it('names the month and year', () => {
    expect(localMonth('2026-11', { locale: 'en-GB' })).toBe('November 2026');
  });
});
