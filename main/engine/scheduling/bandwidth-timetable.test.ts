import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseBandwidth } from '../../../shared/bandwidth.js';
import { applyTimetable } from './bandwidth-timetable.js';

afterEach(() => vi.useRealTimers());

describe('a bandwidth timetable over a running engine', () => {
  it('sets the limit in force at once, then each change at its local time, across midnight', () => {
    vi.useFakeTimers({ now: new Date(2026, 10, 23, 7, 30) });
    const set: (number | null)[] = [];
    const changes: string[] = [];
    const stop = applyTimetable(
      { setBandwidth: (b) => set.push(b) },
      parseBandwidth('08:00,512k 19:00,off'),
      (b, until) => changes.push(`${b} until ${until?.getHours()}:${String(until?.getMinutes()).padStart(2, '0')}`),
    );
    expect(set).toEqual([null]); // 07:30: the evening's "off" still runs
    vi.advanceTimersByTime(30 * 60_000);
    expect(set).toEqual([null, 512 * 1024]);
    vi.advanceTimersByTime(11 * 3600_000);
    expect(set).toEqual([null, 512 * 1024, null]);
    vi.advanceTimersByTime(13 * 3600_000); // the next morning
    expect(set).toEqual([null, 512 * 1024, null, 512 * 1024]);
    expect(changes).toEqual(['null until 8:00', '524288 until 19:00', 'null until 8:00', '524288 until 19:00']);
    stop();
    vi.advanceTimersByTime(24 * 3600_000);
    expect(set).toHaveLength(4);
  });
});

describe("a timetable's pause hours", () => {
  it('hold the queue until the next change, then end the hold; stopping it ends a hold in force', () => {
    vi.useFakeTimers({ now: new Date(2026, 10, 23, 7, 30) });
    const holds: (string | undefined)[] = [];
    const engine = {
      setBandwidth: () => {},
      holds: { byTimetable: (until: string | undefined) => void holds.push(until) },
    };
    const stop = applyTimetable(engine, parseBandwidth('08:00,pause 18:00,2M'));
    expect(holds).toEqual([undefined]); // 07:30: the evening's 2M runs past midnight
    vi.advanceTimersByTime(30 * 60_000);
    expect(holds.at(-1)).toBe(new Date(2026, 10, 23, 18, 0).toISOString());
    vi.advanceTimersByTime(10 * 3600_000);
    expect(holds.at(-1)).toBeUndefined();
    vi.advanceTimersByTime(14 * 3600_000); // 08:00 the next day
    expect(holds.at(-1)).toBe(new Date(2026, 10, 24, 18, 0).toISOString());
    stop();
    expect(holds.at(-1)).toBeUndefined();
  });

  it('are refused where they would stop everything, or as a single limit', () => {
    expect(() => parseBandwidth('pause')).toThrow(/"pause" is for some hours of a timetable/);
    expect(() => parseBandwidth('08:00,pause 18:00,pause')).toThrow(/pauses at every hour/);
    expect(parseBandwidth('08:00,pause 18:00,off')).toEqual([
      { minute: 480, bytesPerSecond: null, pause: true },
      { minute: 1080, bytesPerSecond: null },
    ]);
  });
});
