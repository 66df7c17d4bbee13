import { afterEach, describe, expect, it, vi } from 'vitest';
import { create } from 'zustand';
import type { NoticeSlice } from './notices-slice.js';
import { INFO_MS, NOTICES_KEPT, noticeSlice } from './notices-slice.js';

afterEach(() => vi.useRealTimers());

describe('the messages bar', () => {
  it('counts the same message instead of stacking it, keeps errors until dismissed, lets information fade', () => {
    vi.useFakeTimers();
    const store = create<NoticeSlice>()(noticeSlice);
    const s = () => store.getState();
    for (let i = 0; i < 3; i++) s().notify('error', 'Storage refused the upload of walk.insv.');
    s().notify('info', '2 captures queued.');
    expect(s().notices.map((n) => [n.level, n.message, n.count])).toEqual([
      ['error', 'Storage refused the upload of walk.insv.', 3],
      ['info', '2 captures queued.', 1],
    ]);
    vi.advanceTimersByTime(INFO_MS + 1);
    expect(s().notices.map((n) => n.level)).toEqual(['error']);
    s().dismiss(s().notices[0]!.id);
    expect(s().notices).toEqual([]);
  });

  it('keeps the newest messages only, and dismisses all at once', () => {
    const store = create<NoticeSlice>()(noticeSlice);
    const s = () => store.getState();
    for (let i = 0; i < NOTICES_KEPT + 5; i++) s().notify('warning', `warning ${i}`);
    expect(s().notices).toHaveLength(NOTICES_KEPT);
    expect(s().notices.at(-1)!.message).toBe(`warning ${NOTICES_KEPT + 4}`);
    s().dismissAll();
    expect(s().notices).toEqual([]);
  });
});
