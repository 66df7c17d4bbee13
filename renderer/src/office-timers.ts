import type { StoreApi } from 'zustand';
import type { AssetsSlice } from './assets-slice.js';
import { localDay } from './components/records/calendar.js';
import type { OutboxSlice } from './outbox-slice.js';
import type { ProgressSlice } from './progress-slice.js';

// Every timer of the office workspaces, started when a workspace opens and stopped when it closes
// (docs/office.md, "The workspaces' state in the window"); each says its interval, its deadline
// and what happens when it passes:
// - the entries read again: every PROGRESS_RETRY_MS while retrying(), a tick skipped while a read
//   is in flight; each read is bounded by the host's call deadline (180 s,
//   main/service-host/call-deadlines.ts), after which it fails and the heading says why; the next
//   tick tries again.
// - today's local day: 1 s past local midnight, every DAY_RECHECK_MS, on focus and when the
//   window becomes visible; when the day moved, rollToday moves a calendar left on today, and the
//   form's date, with it.
// - a discard's Undo: UNDO_MS from the click (outbox-slice.ts, `outboxDiscarding.at`); then the
//   discard is carried out.
// The Assets workspace has none: its reads are a person's choices, each cancelled by the next.

/** While the entries are the copy kept on this computer, a read failed, or entries wait in the outbox, the service is read again this often (ms). */
export const PROGRESS_RETRY_MS = 15_000;

/**
 * How often the day is read again besides midnight and focus (ms): a timer set for midnight
 * fires late, or not at all, across a sleep; this bounds how long a woken laptop shows yesterday.
 */
const DAY_RECHECK_MS = 60_000;

/** The store the Progress workspace's timers drive: the one store, or a test's of the same slices. */
type ProgressStore = Pick<StoreApi<ProgressSlice & OutboxSlice>, 'getState' | 'subscribe'>;

/** Whether the workspace reads the service again on its own: offline, after a failed read, or while entries wait to be sent. */
const retrying = (s: ProgressSlice): boolean =>
  Boolean(s.progressFresh?.offline || s.progressError || s.outbox.some((i) => i.state === 'waiting'));

/** Milliseconds from `now` to one second past the next local midnight. */
function msToMidnight(now = new Date()): number {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1, 0, 0, 1).getTime() - now.getTime();
}

/**
 * Opens the Progress workspace's state on today's local day and starts its timers (the table
 * above); answers the function that stops them all and closes the state (a discard not taken back
 * is carried out then).
 */
export function followProgress(store: ProgressStore): () => void {
  let midnight: ReturnType<typeof setTimeout> | undefined;
  let poll: ReturnType<typeof setInterval> | undefined;
  let undo: ReturnType<typeof setTimeout> | undefined;

  const checkDay = () => store.getState().rollToday(localDay());
  const armMidnight = () => {
    clearTimeout(midnight);
    midnight = setTimeout(checkDay, msToMidnight());
  };
  const readAgain = () => {
    const s = store.getState();
    if (!s.progressLoading) void s.loadProgress();
  };
  const follow = (s: ProgressSlice & OutboxSlice, before: ProgressSlice & OutboxSlice) => {
    if (s.progressToday !== before.progressToday) armMidnight();
    if (retrying(s) && !poll) poll = setInterval(readAgain, PROGRESS_RETRY_MS);
    if (!retrying(s) && poll) {
      clearInterval(poll);
      poll = undefined;
    }
    if (s.outboxDiscarding !== before.outboxDiscarding) {
      clearTimeout(undo);
      undo = undefined;
      const pending = s.outboxDiscarding;
      if (pending) undo = setTimeout(() => void store.getState().settleDiscard(), Math.max(0, pending.at - Date.now()));
    }
  };

  store.getState().openProgress(localDay());
  const unsubscribe = store.subscribe(follow);
  armMidnight();
  const every = setInterval(checkDay, DAY_RECHECK_MS);
  window.addEventListener('focus', checkDay);
  document.addEventListener('visibilitychange', checkDay);
  return () => {
    unsubscribe();
    clearTimeout(midnight);
    clearInterval(every);
    clearInterval(poll);
    clearTimeout(undo);
    window.removeEventListener('focus', checkDay);
    document.removeEventListener('visibilitychange', checkDay);
    store.getState().closeProgress();
    store.getState().closeOutbox();
  };
}

/** Opens the Assets workspace's state (no timer: see the table above); answers the function that closes it, cancelling the read under way. */
export function followAssets(store: Pick<StoreApi<AssetsSlice>, 'getState'>): () => void {
  store.getState().openAssets();
  return () => store.getState().closeAssets();
}
