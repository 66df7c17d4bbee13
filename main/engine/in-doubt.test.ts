import { describe, expect, it } from 'vitest';
import { settleInDoubt } from './in-doubt.js';

// The next start's questions about parts sent in full whose answer never came (issue 17 #16).
describe('settleInDoubt', () => {
  it('asks again until storage shows the part, and answers it as found', async () => {
    let asked = 0;
    const found = await settleInDoubt([{ partNumber: 3, unansweredAt: Date.now() }], () => Promise.resolve(new Set(++asked < 3 ? [3, 4] : [4])), new AbortController().signal, 10_000);
    expect([...found]).toEqual([3]);
    expect(asked).toBe(3);
  });

  it('gives up once the settle time after the part was given up is over: the part is not found', async () => {
    let asked = 0;
    const found = await settleInDoubt([{ partNumber: 1, unansweredAt: Date.now() - 9_000 }], () => (asked++, Promise.resolve(new Set([1]))), new AbortController().signal, 10_000);
    expect(found.size).toBe(0);
    // About 1 s was left of the 10 s: asked at once and once more after it.
    expect(asked).toBeGreaterThanOrEqual(2);
    expect(asked).toBeLessThanOrEqual(4);
  });

  it('a part given up long ago is asked about once; a time in the future (a clock stepped back) waits no longer than the settle time', async () => {
    let asked = 0;
    const old = await settleInDoubt([{ partNumber: 1, unansweredAt: Date.now() - 86_400_000 }], () => (asked++, Promise.resolve(new Set([1]))), new AbortController().signal, 10_000);
    expect(old.size).toBe(0);
    expect(asked).toBe(1);
    asked = 0;
    const future = await settleInDoubt([{ partNumber: 1, unansweredAt: Date.now() + 3_600_000 }], () => (asked++, Promise.resolve(new Set([1]))), new AbortController().signal, 1500);
    expect(future.size).toBe(0);
    // Asked about every second for 1.5 s (not for an hour): at 0, 1 and 1.5 s, a timer's slack aside.
    expect(asked).toBeGreaterThanOrEqual(2);
    expect(asked).toBeLessThanOrEqual(4);
  });

  it('stops with CancelledError when aborted while waiting', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(settleInDoubt([{ partNumber: 1, unansweredAt: Date.now() }], () => Promise.resolve(new Set([1])), controller.signal, 10_000)).rejects.toThrow('Cancelled');
  });
});
