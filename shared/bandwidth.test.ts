import { describe, expect, it } from 'vitest';
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
