import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRate, nextChange, parseBandwidth, parseRate, rateAt } from './bandwidth.js';

const at = (hh: number, mm: number) => new Date(2026, 10, 23, hh, mm);

describe('bandwidth limits as people write them', () => {
  it('reads rates in binary bytes (as rclone) and decimal bits (as uplinks are sold), down to 8 KiB/s', () => {
    expect(parseRate('512k')).toBe(512 * 1024);
    expect(parseRate('2M')).toBe(2 * 1024 ** 2);
    expect(parseRate('1.5MiB/s')).toBe(1.5 * 1024 ** 2);
    expect(parseRate('8Mbit')).toBe(1_000_000);
    expect(parseRate('256 kbps')).toBe(32_000);
    expect(parseRate('8k')).toBe(8192);
    expect(parseRate('off')).toBeNull();
    expect(() => parseRate('4k')).toThrow(/below the lowest limit of 8 KiB\/s/);
    expect(() => parseRate('fast')).toThrow(/"fast" is not a bandwidth: write a rate such as 512k/);
  });

  it('reads a daily timetable and says the limit in force at any local time, and when it next changes', () => {
    const t = parseBandwidth('08:00,512k 12:30,2M 19:00,off');
    expect(t).toEqual([
      { minute: 480, bytesPerSecond: 512 * 1024 },
      { minute: 750, bytesPerSecond: 2 * 1024 ** 2 },
      { minute: 1140, bytesPerSecond: null },
    ]);
    expect(rateAt(t, at(7, 59))).toBeNull(); // before the first entry: the last one runs past midnight
    expect(rateAt(t, at(8, 0))).toBe(512 * 1024);
    expect(rateAt(t, at(12, 29))).toBe(512 * 1024);
    expect(rateAt(t, at(12, 30))).toBe(2 * 1024 ** 2);
    expect(rateAt(t, at(23, 0))).toBeNull();
    expect(nextChange(t, at(9, 0))).toEqual(at(12, 30));
    expect(nextChange(t, at(20, 0))).toEqual(new Date(2026, 10, 24, 8, 0));
    expect(parseBandwidth('2M')).toEqual([{ minute: 0, bytesPerSecond: 2 * 1024 ** 2 }]);
    expect(nextChange(parseBandwidth('2M'), at(9, 0))).toBeNull();
  });

  it('refuses a timetable out of order or with a bad entry, naming it', () => {
    expect(() => parseBandwidth('19:00,off 08:00,512k')).toThrow(/increasing order/);
    expect(() => parseBandwidth('8h,512k 19:00,off')).toThrow(/"8h,512k" is not a timetable entry: write HH:MM,RATE/);
    expect(() => parseBandwidth('25:00,1M 26:00,2M')).toThrow(/"25:00,1M" is not a timetable entry/);
  });

  it('says a limit as it compares with an uplink', () => {
    expect(formatRate(50 * 1024 ** 2)).toBe('50 MiB/s (419 Mbit/s)');
    expect(formatRate(32 * 1024)).toBe('32 KiB/s (0.26 Mbit/s)');
    expect(formatRate(null)).toBe('no limit');
  });
});

describe('a timetable across a clock change', () => {
  // Berlin, 25 Oct 2026: at 03:00 CEST the clocks go back to 02:00 CET, so 02:00–02:59 happens
  // twice (00:00Z–00:59Z, then 01:00Z–01:59Z).
  const tz = process.env.TZ;
  beforeAll(() => void (process.env.TZ = 'Europe/Berlin'));
  afterAll(() => void (tz === undefined ? delete process.env.TZ : (process.env.TZ = tz)));

  it('in the repeated hour, the next change of the same night is today, not tomorrow', () => {
    const t = parseBandwidth('02:30,pause 06:00,off');
    // The second pass of 02:10 (01:10Z): the pause starts at the second pass of 02:30 (01:30Z).
    expect(nextChange(t, new Date('2026-10-25T01:10:00Z'))).toEqual(new Date('2026-10-25T01:30:00Z'));
    // The first pass of 02:40 (00:40Z): 02:30 comes again at 01:30Z, before 06:00.
    expect(nextChange(t, new Date('2026-10-25T00:40:00Z'))).toEqual(new Date('2026-10-25T01:30:00Z'));
    // Once past both passes, 06:00 CET.
    expect(nextChange(t, new Date('2026-10-25T01:40:00Z'))).toEqual(new Date('2026-10-25T05:00:00Z'));
  });

  it('a wall time the spring change skips comes at the change', () => {
    // 29 Mar 2026: 02:00 CET jumps to 03:00 CEST; 02:30 never happens.
    const t = parseBandwidth('02:30,pause 06:00,off');
    const next = nextChange(t, new Date('2026-03-29T00:50:00Z'))!;
    expect(next.getTime()).toBeGreaterThan(Date.parse('2026-03-29T00:50:00Z'));
    expect(next.getTime()).toBeLessThanOrEqual(Date.parse('2026-03-29T01:30:00Z'));
  });
});
