import { whenAt } from '../../../../shared/when.js';

// The "Pause until" field's time, in the locale's own clock. A browser's <input type="time">
// shows its time in the browser's interface language, whatever the page's: "07:00 AM" on a page
// that says every other time "07:00" (en-GB). So the field is text, written and read here in the
// one time format (shared/when.ts whenAt).

/** A time of day: hours 0–23, minutes 0–59. */
export interface ClockTime {
  hours: number;
  minutes: number;
}

/** `t` today as the locale shows a time (shared/when.ts whenAt): `07:00` in en-GB, `7:00 AM` in en-US. `locale` is for tests. */
export function clockText(t: ClockTime, locale?: string): string {
  const at = new Date();
  at.setHours(t.hours, t.minutes, 0, 0);
  return whenAt(at.getTime(), { locale });
}

/** The locale's words for before and after noon, lower case ("am", "pm"), from its own formatting of 01:00 and 13:00. */
function dayPeriods(locale?: string): { am: string; pm: string } {
  const word = (h: number) =>
    new Intl.DateTimeFormat(locale, { hour: 'numeric', hourCycle: 'h12' })
      .formatToParts(new Date(2000, 0, 1, h))
      .find((p) => p.type === 'dayPeriod')
      ?.value.toLowerCase()
      .replaceAll('.', '') ?? '';
  return { am: word(1), pm: word(13) };
}

/**
 * The time a person typed: `7`, `07:00`, `7.30`, `0730`, `19:30`, or 12-hour with `am`/`pm`
 * (`a.m.`, any case) or the locale's own words for them (`7:30 PM`). Undefined when it is not a
 * time of day. `locale` is for tests.
 */
export function parseClockTime(text: string, locale?: string): ClockTime | undefined {
  let s = text
    .toLowerCase()
    .replace(/[\s\u00a0\u202f]+/g, ' ')
    .replaceAll('.', (m, i: number, all: string) =>
      /\d/.test(all[i - 1] ?? '') && /\d/.test(all[i + 1] ?? '') ? ':' : '',
    )
    .trim();
  const words = dayPeriods(locale);
  let half: 'am' | 'pm' | undefined;
  for (const [key, marks] of [
    ['pm', ['pm', words.pm]],
    ['am', ['am', words.am]],
  ] as const) {
    const mark = marks.find((m) => m && s.includes(m));
    if (mark && !half) {
      half = key;
      s = s.replace(mark, '').trim();
    }
  }
  const m = /^(\d{1,2})(?::?(\d{2}))?$/.exec(s);
  if (!m) return undefined;
  let hours = Number(m[1]);
  const minutes = m[2] === undefined ? 0 : Number(m[2]);
  if (minutes > 59) return undefined;
  if (half) {
    if (hours < 1 || hours > 12) return undefined;
    hours = (hours % 12) + (half === 'pm' ? 12 : 0);
  } else if (hours > 23) return undefined;
  return { hours, minutes };
}
