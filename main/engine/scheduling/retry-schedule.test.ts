import { describe, expect, it } from 'vitest';
import { overnightRetrySchedule } from './retry-schedule.js';

// The overnight schedule's waits (ms): 15 s doubling to a 15 min cap, each shortened by up to a
// tenth at random, never given up (docs/engine.md).
describe('overnightRetrySchedule', () => {
  const s = overnightRetrySchedule();
  const range = (attempt: number): [number, number] => {
    const waits = Array.from({ length: 400 }, () => s.delayMs(attempt));
    return [Math.min(...waits), Math.max(...waits)];
  };

  it('waits 15 s, 30 s, 1 min, 2 min… each shortened by at most a tenth, and not all alike', () => {
    for (const [attempt, full] of [
      [0, 15_000],
      [1, 30_000],
      [2, 60_000],
      [3, 120_000],
    ] as const) {
      const [min, max] = range(attempt);
      expect(min, `attempt ${attempt}`).toBeGreaterThanOrEqual(full * 0.9);
      expect(max, `attempt ${attempt}`).toBeLessThanOrEqual(full);
      expect(max - min, `attempt ${attempt}: jitter`).toBeGreaterThan(0);
    }
  });

  it('never waits longer than 15 min, however many attempts, and says so as its longest wait', () => {
    expect(s.maxDelayMs).toBe(15 * 60_000);
    for (const attempt of [6, 7, 30, 31, 1000]) {
      const [min, max] = range(attempt);
      expect(max, `attempt ${attempt}`).toBeLessThanOrEqual(15 * 60_000);
      expect(min, `attempt ${attempt}`).toBeGreaterThanOrEqual(15 * 60_000 * 0.9);
    }
  });

  it('takes its first wait and cap from its arguments (ms)', () => {
    const short = overnightRetrySchedule(20, 100);
    expect(short.maxDelayMs).toBe(100);
    expect(short.delayMs(0)).toBeLessThanOrEqual(20);
    expect(short.delayMs(0)).toBeGreaterThanOrEqual(18);
    expect(short.delayMs(10)).toBeLessThanOrEqual(100);
    expect(short.delayMs(10)).toBeGreaterThanOrEqual(90);
  });
});
