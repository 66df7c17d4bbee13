import { describe, expect, it } from 'vitest';
import { AnswerSettler, settleInDoubt } from './in-doubt.js';

// The next start's questions about parts sent in full whose answer never came.

/**
 * Settles part 1, left unanswered at `unansweredAt` (ms since the epoch), against a storage that
 * never shows it, with a settle time of `settleMs` (ms): what was found and how often storage was asked.
 */
async function settleMissingPart(
  unansweredAt: number,
  settleMs: number,
): Promise<{ found: Set<number>; asked: number }> {
  let asked = 0;
  const found = await settleInDoubt(
    [{ partNumber: 1, unansweredAt }],
    () => (asked++, Promise.resolve(new Set([1]))),
    new AbortController().signal,
    settleMs,
  );
  return { found, asked };
}

describe('settleInDoubt', () => {
  it('asks again until storage shows the part, and answers it as found', async () => {
    let asked = 0;
    const found = await settleInDoubt(
      [{ partNumber: 3, unansweredAt: Date.now() }],
      () => Promise.resolve(new Set(++asked < 3 ? [3, 4] : [4])),
      new AbortController().signal,
      10_000,
    );
    expect([...found]).toEqual([3]);
    expect(asked).toBe(3);
  });

  it('gives up once the settle time after the part was given up is over: the part is not found', async () => {
    const { found, asked } = await settleMissingPart(Date.now() - 9_000, 10_000);
    expect(found.size).toBe(0);
    // About 1 s was left of the 10 s: asked at once and once more after it.
    expect(asked).toBeGreaterThanOrEqual(2);
    expect(asked).toBeLessThanOrEqual(4);
  });

  it('a part given up long ago is asked about once; a time in the future (a clock stepped back) waits no longer than the settle time', async () => {
    const old = await settleMissingPart(Date.now() - 86_400_000, 10_000);
    expect(old.found.size).toBe(0);
    expect(old.asked).toBe(1);
    const future = await settleMissingPart(Date.now() + 3_600_000, 1500);
    expect(future.found.size).toBe(0);
    // Asked about every second for 1.5 s (not for an hour): at 0, 1 and 1.5 s, a timer's slack aside.
    expect(future.asked).toBeGreaterThanOrEqual(2);
    expect(future.asked).toBeLessThanOrEqual(4);
  });

  it('stops with CancelledError when aborted while waiting', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(
      settleInDoubt(
        [{ partNumber: 1, unansweredAt: Date.now() }],
        () => Promise.resolve(new Set([1])),
        controller.signal,
        10_000,
      ),
    ).rejects.toThrow('Cancelled');
  });
});

// The same questions within one run, for parts whose answer was lost while others go on.
describe('AnswerSettler', () => {
  it('answers a part found once storage shows it; parts waiting together share each question', async () => {
    let asked = 0;
    const stored = new Set<number>();
    const settler = new AnswerSettler(
      () => (asked++, Promise.resolve(new Set([1, 2, 3].filter((n) => !stored.has(n))))),
      10_000,
      new AbortController().signal,
    );
    const one = settler.settle(1);
    const two = settler.settle(2);
    setTimeout(() => stored.add(1), 1200);
    setTimeout(() => stored.add(2), 2200);
    expect(await one).toBe(true);
    expect(await two).toBe(true);
    // Asked at about 0, 1, 2 and 3 s for both parts at once, not once per part each time.
    expect(asked).toBeGreaterThanOrEqual(3);
    expect(asked).toBeLessThanOrEqual(5);
  });

  it('answers not found once its settle time is over, and starts asking again for a part in doubt later', async () => {
    let asked = 0;
    const settler = new AnswerSettler(
      () => (asked++, Promise.resolve(new Set([4]))),
      1500,
      new AbortController().signal,
    );
    expect(await settler.settle(4)).toBe(false);
    expect(asked).toBeGreaterThanOrEqual(2); // at once, and again before giving up
    const before = asked;
    expect(await settler.settle(4)).toBe(false);
    expect(asked).toBeGreaterThan(before);
  });

  it('every waiting part fails with what the question throws, and with CancelledError on abort', async () => {
    const failing = new AnswerSettler(
      () => Promise.reject(new Error('gateway down')),
      10_000,
      new AbortController().signal,
    );
    await expect(Promise.all([failing.settle(1), failing.settle(2)])).rejects.toThrow('gateway down');
    const controller = new AbortController();
    const settler = new AnswerSettler(() => Promise.resolve(new Set([1])), 10_000, controller.signal);
    setTimeout(() => controller.abort(), 100);
    await expect(settler.settle(1)).rejects.toThrow('Cancelled');
    await expect(settler.settle(2)).rejects.toThrow('Cancelled');
  });
});
