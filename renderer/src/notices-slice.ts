import type { StateCreator } from 'zustand';

/**
 * A message for the person. `count` says how many times the same message came (it is shown once,
 * "×3"); `at` is when it last came (ms since the epoch).
 */
export interface Notice {
  id: number;
  level: 'info' | 'warning' | 'error';
  message: string;
  count: number;
  at: number;
}

/**
 * The messages bar's state ("quiet nights"). What the queue can say in its rows (a
 * retry time, a file that needs a person) is never a notice; what comes here is an answer to
 * something the person did, or something they must act on. The same message again is counted,
 * not stacked; information fades after `INFO_MS`; warnings and errors stay until dismissed.
 */
export interface NoticeSlice {
  notices: Notice[];
  notify(level: Notice['level'], message: string): void;
  dismiss(id: number): void;
  dismissAll(): void;
}

/** How long an information notice stays (ms). */
export const INFO_MS = 6000;
/** Notices kept (the oldest leave first). */
export const NOTICES_KEPT = 20;

let noticeId = 0;
const timers = new Map<number, ReturnType<typeof setTimeout>>();

/** The notice slice of the renderer's store. */
export const noticeSlice: StateCreator<NoticeSlice, [], [], NoticeSlice> = (set, get) => {
  const fade = (n: Notice) => {
    if (n.level !== 'info') return;
    clearTimeout(timers.get(n.id));
    timers.set(
      n.id,
      setTimeout(() => get().dismiss(n.id), INFO_MS),
    );
  };
  return {
    notices: [],
    notify(level, message) {
      const same = get().notices.find((n) => n.level === level && n.message === message);
      const others = get().notices.filter((n) => n !== same);
      const next: Notice = same
        ? { ...same, count: same.count + 1, at: Date.now() }
        : { id: ++noticeId, level, message, count: 1, at: Date.now() };
      set({ notices: [...others, next].slice(-NOTICES_KEPT) });
      fade(next);
    },
    dismiss(id) {
      clearTimeout(timers.get(id));
      timers.delete(id);
      set({ notices: get().notices.filter((n) => n.id !== id) });
    },
    dismissAll() {
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
      set({ notices: [] });
    },
  };
};
