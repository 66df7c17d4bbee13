import { describe, expect, it } from 'vitest';
import { clockText, parseClockTime } from './clock-time.js';

describe('clockText', () => {
  it('says a time as the locale does: 24-hour in en-GB, 12-hour in en-US', () => {
    expect(clockText({ hours: 7, minutes: 0 }, 'en-GB')).toBe('07:00');
    expect(clockText({ hours: 19, minutes: 30 }, 'en-GB')).toBe('19:30');
    expect(clockText({ hours: 7, minutes: 0 }, 'en-US').replace(/\s/g, ' ')).toBe('7:00 AM');
    expect(clockText({ hours: 19, minutes: 30 }, 'en-US').replace(/\s/g, ' ')).toBe('7:30 PM');
  });
});

describe('parseClockTime', () => {
  it('reads the times a person types in either clock', () => {
    const read = (s: string, locale = 'en-GB') => parseClockTime(s, locale);
    expect(read('07:00')).toEqual({ hours: 7, minutes: 0 });
    expect(read('7')).toEqual({ hours: 7, minutes: 0 });
    expect(read('7.30')).toEqual({ hours: 7, minutes: 30 });
    expect(read('0730')).toEqual({ hours: 7, minutes: 30 });
    expect(read(' 19:30 ')).toEqual({ hours: 19, minutes: 30 });
    expect(read('0:05')).toEqual({ hours: 0, minutes: 5 });
    expect(read('7:30 pm')).toEqual({ hours: 19, minutes: 30 });
    expect(read('7:30 P.M.')).toEqual({ hours: 19, minutes: 30 });
    expect(read('12 am')).toEqual({ hours: 0, minutes: 0 });
    expect(read('12:15 PM')).toEqual({ hours: 12, minutes: 15 });
  });

  it('reads back what clockText wrote, in either locale', () => {
    for (const locale of ['en-GB', 'en-US', 'de-DE'])
      for (const t of [
        { hours: 0, minutes: 5 },
        { hours: 7, minutes: 0 },
        { hours: 12, minutes: 0 },
        { hours: 23, minutes: 59 },
      ])
        expect(parseClockTime(clockText(t, locale), locale)).toEqual(t);
  });

  it('answers nothing for what is not a time of day', () => {
    for (const s of ['', 'soon', '24:00', '7:60', '13 pm', '0 am', '7:5', '1:2:3', '123456'])
      expect(parseClockTime(s, 'en-GB'), s).toBeUndefined();
  });
});
