import { describe, expect, it } from 'vitest';
import { formatCopyProgress } from '../../shared/format.js';
import { CopyRate } from './copy-rate.js';

const MiB = 1024 * 1024;

describe('CopyRate', () => {
  it('measures the bytes of the last 5 s against a stepped clock, and the time left from that rate', () => {
    let now = 1000;
    const r = new CopyRate(() => now);
    // The first half second: a rate (over at least 1 s), no time left yet.
    now += 500;
    expect(r.sample(40 * MiB, 1000 * MiB)).toEqual({ bytesPerSecond: 40 * MiB, secondsLeft: null });
    // 90 MiB/s for 4.5 s more: 445 MiB in 5 s.
    for (let i = 1; i <= 45; i++) {
      now += 100;
      r.sample(40 * MiB + i * 9 * MiB, 1000 * MiB);
    }
    now += 100;
    const s = r.sample(40 * MiB + 46 * 9 * MiB, 1000 * MiB); // 454 MiB done at 5.1 s
    // The window's anchor is the first sample at or before 0.1 s: 0 MiB at 0 s, so 454 MiB in 5.1 s.
    expect(s.bytesPerSecond).toBe(Math.round((454 * MiB) / 5.1));
    expect(s.secondsLeft).toBe(Math.ceil((546 * MiB) / ((454 * MiB) / 5.1)));
    // The reader slows to 10 MiB/s: after 5 s more the rate is that, not the average since the start.
    let done = 454 * MiB;
    for (let i = 0; i < 60; i++) {
      now += 100;
      done += MiB;
      r.sample(done, 1000 * MiB);
    }
    const slow = r.sample(done, 1000 * MiB);
    expect(slow.bytesPerSecond).toBeGreaterThanOrEqual(10 * MiB * 0.98);
    expect(slow.bytesPerSecond).toBeLessThanOrEqual(10 * MiB * 1.02);
    expect(slow.secondsLeft).toBe(Math.ceil((1000 * MiB - done) / slow.bytesPerSecond));
  });

  it('says nothing is known while nothing moves, and 0 s left once every byte is copied', () => {
    let now = 0;
    const r = new CopyRate(() => now);
    now = 3000;
    expect(r.sample(0, 100)).toEqual({ bytesPerSecond: 0, secondsLeft: null });
    now = 9000;
    expect(r.sample(100, 100)).toEqual({ bytesPerSecond: Math.round((100 * 1000) / 6000), secondsLeft: 0 });
  });

  it('is said as bytes, rate and time left', () => {
    expect(formatCopyProgress(412 * MiB, 1229 * MiB, 87 * MiB, 9)).toBe(
      '412 MiB of 1.2 GiB · 87.0 MiB/s · about 9 s left',
    );
    expect(formatCopyProgress(4 * MiB, 1229 * MiB, 4 * MiB, null)).toBe('4.0 MiB of 1.2 GiB · 4.0 MiB/s');
    expect(formatCopyProgress(0, 1229 * MiB, 0, null)).toBe('0 B of 1.2 GiB');
    expect(formatCopyProgress(1229 * MiB, 1229 * MiB, 87 * MiB, 0)).toBe('1.2 GiB of 1.2 GiB · 87.0 MiB/s');
  });
});
