import { describe, expect, it } from 'vitest';
import { explainDouble } from './chaos-checks.js';

// The in-doubt rules by which the chaos check lets a part be stored twice (docs/engine.md).

const FILE = 'VID_20260101_061200_00_001.mp4';

describe('explainDouble', () => {
  it('explains a copy whose sender was killed after storage stored it and before it recorded the answer', () => {
    const first = { arrivedAt: 1000, storedAt: 3000 };
    const second = { arrivedAt: 5000, storedAt: 6000 };
    expect(explainDouble(FILE, 1, first, second, [], [2990])).toBe('killed');
  });

  it("explains a killed sender's copy that the kernel delivered after the next run had stored its own", () => {
    // Storage logs copies as they are stored: the next run's copy (arrived after the kill) comes
    // first, the dead process's buffered body, arrived before the kill, is stored after it.
    const nextRuns = { arrivedAt: 4552, storedAt: 6805 };
    const orphan = { arrivedAt: 1417, storedAt: 6850 };
    expect(explainDouble(FILE, 2, nextRuns, orphan, [], [3371])).toBe('killed');
  });

  it('does not explain a double whose copies were both sent after the last death', () => {
    const first = { arrivedAt: 4000, storedAt: 4500 };
    const second = { arrivedAt: 5000, storedAt: 5600 };
    expect(explainDouble(FILE, 1, first, second, [], [3371])).toBe('unexplained');
  });

  it('explains a part the uploader said it sent again', () => {
    const copy = { arrivedAt: 4000, storedAt: 4500 };
    const line = `Part 3 of ${FILE}: sent in full, no answer, and storage did not show it within 5 s; sending it again`;
    expect(explainDouble(FILE, 3, copy, copy, [line], [])).toBe('logged');
    expect(explainDouble(FILE, 4, copy, copy, [line], [])).toBe('unexplained');
  });
});
