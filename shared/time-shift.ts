/**
 * A time shift for captures whose camera clock was wrong: "+01:00", "-1 day",
 * "−30 min", "+2 h", or "first 09:12" ("set the first to 09:12 and keep the gaps"). Times stay
 * ISO 8601 with each one's own UTC offset, as capture-upload-interface.md §4.4 sends them.
 */
export type TimeShift = { kind: 'by'; ms: number } | { kind: 'first'; hh: number; mm: number; ss: number };

const UNIT_MS: Record<string, number> = {
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  m: 60_000,
};

/**
 * Reads what a person typed; null when it is not a shift. Accepts a sign (+, -, or the minus
 * sign −) with `HH:MM`, or with a number and a unit (day, h, min); or `first HH:MM[:SS]` (also a
 * bare `HH:MM` without a sign) to set the earliest selected capture to that local time.
 */
export function parseShift(text: string): TimeShift | null {
  const t = text
    .trim()
    .replace(/\u2212/g, '-')
    .toLowerCase();
  const first = /^(?:first\s+(?:to\s+)?)?(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(t);
  if (first && !/^[+-]/.test(t)) {
    const [hh, mm, ss] = [Number(first[1]), Number(first[2]), Number(first[3] ?? 0)];
    return hh < 24 && mm < 60 && ss < 60 ? { kind: 'first', hh, mm, ss } : null;
  }
  const clock = /^([+-])\s*(\d{1,3}):(\d{2})$/.exec(t);
  if (clock) {
    const ms = (Number(clock[2]) * 60 + Number(clock[3])) * 60_000;
    return Number(clock[3]) < 60 && ms > 0 ? { kind: 'by', ms: clock[1] === '-' ? -ms : ms } : null;
  }
  const unit = /^([+-])\s*(\d+(?:\.\d+)?)\s*([a-z]+)$/.exec(t);
  if (unit && UNIT_MS[unit[3]!]) {
    const ms = Math.round(Number(unit[2]) * UNIT_MS[unit[3]!]!);
    return ms > 0 ? { kind: 'by', ms: unit[1] === '-' ? -ms : ms } : null;
  }
  return null;
}

/** Minutes east of UTC of an ISO 8601 time's zone (`Z`: 0); 0 when it names none. */
function offsetMinutes(iso: string): number {
  const m = /([+-])(\d{2}):?(\d{2})$/.exec(iso);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** `ms` (since epoch) as ISO 8601 in the zone of `like` (its offset kept as written: `Z` or `±HH:MM`). */
function inZoneOf(ms: number, like: string): string {
  const off = offsetMinutes(like);
  const local = new Date(ms + off * 60_000).toISOString().slice(0, 19);
  if (/Z$/i.test(like)) return `${local}Z`;
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  return `${local}${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/**
 * The times shifted, in the order given, each in its own zone. For `first`, the earliest time is
 * set to that time of day on its own local date (its zone's), and every other moves by as much,
 * so the gaps between captures stay. Throws RangeError when a time cannot be read.
 */
export function shiftTimes(isos: readonly string[], shift: TimeShift): string[] {
  const ms = isos.map((iso) => {
    const v = Date.parse(iso);
    if (Number.isNaN(v)) throw new RangeError(`Not a time: ${iso}`);
    return v;
  });
  if (ms.length === 0) return [];
  let delta: number;
  if (shift.kind === 'by') delta = shift.ms;
  else {
    const i = ms.indexOf(Math.min(...ms));
    const earliest = isos[i]!;
    const off = offsetMinutes(earliest) * 60_000;
    const day = new Date(ms[i]! + off);
    const wanted =
      Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), shift.hh, shift.mm, shift.ss) - off;
    delta = wanted - ms[i]!;
  }
  return ms.map((v, i) => inZoneOf(v + delta, isos[i]!));
}
