import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseBandwidth } from '../shared/bandwidth.js';
import { applyTimetable } from './bandwidth-timetable.js';

afterEach(() => vi.useRealTimers());

describe('a bandwidth timetable over a running engine', () => {
  it('sets the limit in force at once, then each change at its local time, across midnight', () => {
    vi.useFakeTimers({ now: new Date(2026, 10, 23, 7, 30) });
    const set: (number | null)[] = [];
    const changes: string[] = [];
    const stop = applyTimetable({ setBandwidth: (b) => set.push(b) }, parseBandwidth('08:00,512k 19:00,off'), (b, until) =>
      changes.push(`${b} until ${until?.getHours()}:${String(until?.getMinutes()).padStart(2, '0')}`),
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
