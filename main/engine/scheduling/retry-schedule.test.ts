import { describe, expect, it } from 'vitest';
import { spreadRetryAfter } from '../../api/storage-answer.js';
import { overnightRetrySchedule } from './retry-schedule.js';

// The overnight schedule's waits (ms): attempt n at random between 15 s and min(15 min,
// 15 s × 2^(n+1)), never given up (docs/decisions/0040-full-jitter.md).
describe('overnightRetrySchedule', () => {
  const s = overnightRetrySchedule();
  const range = (attempt: number): [number, number] => {
    const waits = Array.from({ length: 2000 }, () => s.delayMs(attempt));
    return [Math.min(...waits), Math.max(...waits)];
  };

  it('spreads attempt n over 15 s … 30 s, 1 min, 2 min, 4 min: never sooner than 15 s, and over the whole interval', () => {
    for (const [attempt, ceiling] of [
      [0, 30_000],
      [1, 60_000],
      [2, 120_000],
      [3, 240_000],
    ] as const) {
      const [min, max] = range(attempt);
      expect(min, `attempt ${attempt}`).toBeGreaterThanOrEqual(15_000);
      expect(max, `attempt ${attempt}`).toBeLessThanOrEqual(ceiling);
      // 2,000 draws: the lowest and highest tenth of the interval are each reached (a miss: 0.9^2000).
      const tenth = (ceiling - 15_000) / 10;
      expect(min, `attempt ${attempt}: the low end`).toBeLessThan(15_000 + tenth);
      expect(max, `attempt ${attempt}: the high end`).toBeGreaterThan(ceiling - tenth);
    }
  });

  it('at its longest spreads over 15 s – 15 min, however many attempts, and says 15 min is its longest wait', () => {
    expect(s.maxDelayMs).toBe(15 * 60_000);
    for (const attempt of [5, 6, 30, 31, 1000]) {
      const [min, max] = range(attempt);
      expect(max, `attempt ${attempt}`).toBeLessThanOrEqual(15 * 60_000);
      expect(max, `attempt ${attempt}`).toBeGreaterThan(15 * 60_000 * 0.9);
      expect(min, `attempt ${attempt}`).toBeGreaterThanOrEqual(15_000);
      expect(min, `attempt ${attempt}`).toBeLessThan(15 * 60_000 * 0.1);
    }
  });

  it('takes its first wait and cap from its arguments (ms), the random draw from its third', () => {
    const low = overnightRetrySchedule(20, 100, () => 0);
    const high = overnightRetrySchedule(20, 100, () => 0.999_999);
    expect(low.maxDelayMs).toBe(100);
    expect([low.delayMs(0), high.delayMs(0)]).toEqual([20, 40]);
    expect([low.delayMs(10), high.delayMs(10)]).toEqual([20, 100]);
    // A cap below the first wait is the only wait.
    expect(overnightRetrySchedule(300, 300).delayMs(4)).toBe(300);
  });
});

describe('spreadRetryAfter', () => {
  it('never comes back sooner than asked, and later by up to half the wait (at least 1 s, at most 5 min)', () => {
    expect(spreadRetryAfter(60_000, () => 0)).toBe(60_000);
    expect(spreadRetryAfter(60_000, () => 0.999_999)).toBe(90_000);
    expect(spreadRetryAfter(0, () => 0.5)).toBe(500);
    expect(spreadRetryAfter(600_000, () => 0.999_999)).toBe(900_000);
    const waits = Array.from({ length: 500 }, () => spreadRetryAfter(60_000));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(60_000);
    expect(Math.max(...waits)).toBeLessThanOrEqual(90_000);
    expect(
      new Set(waits.map((w) => Math.floor(w / 1000))).size,
      'distinct seconds among 500 told "60 s"',
    ).toBeGreaterThan(25);
  });
});
