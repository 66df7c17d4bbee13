import { DateTime } from 'luxon';
/**
 * Upload bandwidth limits as people write them: a rate (`512k`, `2M`, `1.5MiB/s`, `8Mbit`,
 * `off`), or a daily timetable in the form rclone's `--bwlimit` uses (`08:00,512k 19:00,off`:
 * from 08:00 at 512 KiB/s, from 19:00 unlimited, and before 08:00 what the last entry says).
 * A timetable entry may also say `pause` (`08:00,pause 18:00,off`): in those hours no upload
 * starts and parts in flight stop (a queue-wide hold, main/engine/scheduling/upload-limits.ts), while `off` keeps
 * rclone's meaning of "no limit".
 * Byte units are binary as in rclone (k = KiB/s, M = MiB/s); `bit`/`bps` units are decimal bits
 * per second, as internet plans are sold (8Mbit = 1,000,000 bytes per second).
 */

/** The lowest limit accepted, in bytes per second: below it a 5 MiB part would take over ten minutes. */
const MIN_BANDWIDTH = 8 * 1024;

/**
 * From `minute` (minutes after local midnight, 0–1439) the limit is `bytesPerSecond` (null:
 * none); with `pause` true nothing is uploaded from then (bytesPerSecond is then null).
 */
export interface TimetableEntry {
  minute: number;
  bytesPerSecond: number | null;
  pause?: true;
}

const BYTE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};
const BIT_UNITS: Record<string, number> = {
  kbit: 1e3 / 8,
  kbps: 1e3 / 8,
  mbit: 1e6 / 8,
  mbps: 1e6 / 8,
  gbit: 1e9 / 8,
  gbps: 1e9 / 8,
};

const HOW =
  'write a rate such as 512k, 2M or 8Mbit, "off", or a timetable such as "08:00,512k 19:00,off" (an entry may say "pause")';

/**
 * One rate: bytes per second, or null for `off`. Throws Error naming the text and the fix when
 * it is not a rate or is under MIN_BANDWIDTH (8 KiB/s).
 */
export function parseRate(text: string): number | null {
  const t = text.trim().toLowerCase();
  if (t === 'off' || t === 'none' || t === 'unlimited') return null;
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)(?:\/s)?$/.exec(t);
  const mult = m && (BYTE_UNITS[m[2]!] ?? BIT_UNITS[m[2]!]);
  if (!m || !mult) throw new Error(`"${text}" is not a bandwidth: ${HOW}.`);
  const n = Math.round(Number(m[1]) * mult);
  if (n < MIN_BANDWIDTH)
    throw new Error(`"${text}" is below the lowest limit of 8 KiB/s (64 kbit/s): a part would take too long to send.`);
  return n;
}

/**
 * A limit as written: a single rate (one entry from 00:00) or a timetable of `HH:MM,RATE` entries
 * separated by spaces, in increasing time. Throws Error naming the text and the fix.
 */
export function parseBandwidth(text: string): TimetableEntry[] {
  const parts = text.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) throw new Error(`No bandwidth given: ${HOW}.`);
  if (parts.length === 1 && !parts[0]!.includes(',')) {
    if (isPause(parts[0]!))
      throw new Error(
        '"pause" is for some hours of a timetable (such as "08:00,pause 18:00,off"); to stop every upload now, use Pause until.',
      );
    return [{ minute: 0, bytesPerSecond: parseRate(parts[0]!) }];
  }
  const entries = parts.map((p): TimetableEntry => {
    const m = /^(\d{1,2}):(\d{2}),(.+)$/.exec(p);
    if (!m || Number(m[1]) > 23 || Number(m[2]) > 59)
      throw new Error(`"${p}" is not a timetable entry: write HH:MM,RATE, e.g. 08:00,512k.`);
    const minute = Number(m[1]) * 60 + Number(m[2]);
    return isPause(m[3]!)
      ? { minute, bytesPerSecond: null, pause: true }
      : { minute, bytesPerSecond: parseRate(m[3]!) };
  });
  for (let i = 1; i < entries.length; i++) {
    if (entries[i]!.minute <= entries[i - 1]!.minute)
      throw new Error(`The timetable "${text}" must list its times in increasing order.`);
  }
  if (entries.every((e) => e.pause))
    throw new Error(`The timetable "${text}" pauses at every hour: nothing would ever upload.`);
  return entries;
}

const isPause = (rate: string) => rate.trim().toLowerCase() === 'pause';

/** Minutes after local midnight of a moment. */
const minuteOf = (d: Date) => d.getHours() * 60 + d.getMinutes();

/** The entry in force at `at` (local time): the last entry at or before it, else the day's last entry (it runs past midnight). */
function entryAt(entries: readonly TimetableEntry[], at: Date): TimetableEntry {
  const m = minuteOf(at);
  let current = entries.at(-1)!;
  for (const e of entries) if (e.minute <= m) current = e;
  return current;
}

/** The limit in force at `at` (local time), bytes per second or null for none (also during a `pause` entry: see pausedAt). */
export function rateAt(entries: readonly TimetableEntry[], at: Date): number | null {
  return entryAt(entries, at).bytesPerSecond;
}

/** Whether the timetable pauses every upload at `at` (local time): an entry that says `pause` is in force. */
export function pausedAt(entries: readonly TimetableEntry[], at: Date): boolean {
  return entryAt(entries, at).pause === true;
}

/**
 * When the limit next changes after `at`, or null for a single rate: the first entry's wall time,
 * today or tomorrow, that comes after `at`, with the zone's own rules (Luxon): in the hour a clock
 * change repeats, a wall time has two passes and the second still comes today; a wall time a
 * change skips comes at the change.
 */
export function nextChange(entries: readonly TimetableEntry[], at: Date): Date | null {
  if (entries.length < 2) return null;
  const start = DateTime.fromJSDate(at).startOf('day');
  let best: number | null = null;
  for (const days of [0, 1]) {
    for (const e of entries) {
      const wall = start
        .plus({ days })
        .set({ hour: Math.floor(e.minute / 60), minute: e.minute % 60, second: 0, millisecond: 0 });
      for (const pass of wall.getPossibleOffsets()) {
        const t = pass.toMillis();
        if (t > at.getTime() && (best === null || t < best)) best = t;
      }
    }
  }
  return best === null ? null : new Date(best);
}

/** A limit as people compare it with their uplink: `256 KiB/s (2.1 Mbit/s)`; `no limit` for null. */
export function formatRate(bytesPerSecond: number | null): string {
  if (bytesPerSecond === null) return 'no limit';
  const mbit = (bytesPerSecond * 8) / 1e6;
  const bytes =
    bytesPerSecond < 1024 * 1024
      ? `${+(bytesPerSecond / 1024).toFixed(1)} KiB/s`
      : `${+(bytesPerSecond / 1024 ** 2).toFixed(1)} MiB/s`;
  return `${bytes} (${mbit < 10 ? +mbit.toFixed(2) : Math.round(mbit)} Mbit/s)`;
}
