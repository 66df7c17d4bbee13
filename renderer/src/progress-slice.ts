import type { StateCreator } from 'zustand';
import type { DayCaptureView, OutboxItemView, ProgressEntryView, ResultOf } from '../../shared/ipc.js';
import { api, unwrap } from './api.js';
import { localDay } from './components/records/calendar.js';

/**
 * How fresh the entries shown are: as of when (ISO 8601, the time the service gave them), whether
 * they are the copy kept on this computer while the service cannot be reached and why, and the
 * project (its id, and its name from the settings, '' when none).
 */
interface Freshness {
  asOf: string;
  offline: boolean;
  offlineReason: string | null;
  project: string;
  projectName: string;
}

/**
 * The Progress workspace's slice of the one store (store.ts; progress-records-interface.md):
 * the entries as the service (or the copy kept on this computer) answers them, the outbox's
 * items, the calendar's choices (the month and day shown, the filter), the entry opened by id,
 * the chosen day's captures from the upload queue, and the month's export. Its state lives while
 * the workspace is open ({@link ProgressSlice.openProgress} to
 * {@link ProgressSlice.closeProgress}); an answer that comes after the workspace closed is dropped,
 * as a closed view's would be. Its timers (the retry poll, the day's clock) are office-timers.ts's.
 */
export interface ProgressSlice {
  /** The entries as last read (progress.list), null until this visit's first read answers. */
  progressEntries: ProgressEntryView[] | null;
  /** How fresh they are, null until the first read answers. */
  progressFresh: Freshness | null;
  /** Entries recorded while the service could not be reached, as the last read listed them (outbox-slice.ts acts on them). */
  outbox: OutboxItemView[];
  /** Why the last read failed (the main process's sentence), or null. */
  progressError: string | null;
  /** A read in flight: Refresh says so at once, so a slow service never looks like a dead button. */
  progressLoading: boolean;
  /** Today's local day (YYYY-MM-DD): progress entries carry a date without a zone (§2), so "today" is the person's. */
  progressToday: string;
  /** The month the calendar shows (YYYY-MM). */
  progressMonth: string;
  /** The chosen day (YYYY-MM-DD). */
  progressDay: string;
  /** How many days a person picked this visit: each pick scrolls the day's entries into view (DayView). */
  progressDayPicks: number;
  /** The status filter: 'all' or one status. */
  progressStatus: string;
  /** The search in details, as typed. */
  progressSearch: string;
  /** The entry opened by id (§4 GET /progress/{id}), or null. */
  openedEntry: ProgressEntryView | null;
  /** Why an entry could not be opened, or null. */
  openedEntryProblem: string | null;
  /** The chosen day's captures in this computer's upload queue (queue.byDay), null while read. */
  dayCaptures: DayCaptureView[] | null;
  /** Why the day's captures could not be read, or null. */
  dayCapturesProblem: string | null;
  /** The month's CSV export in flight. */
  reportExporting: boolean;
  /** Why the month could not be exported, or null. */
  reportProblem: string | null;
  /** Opens the workspace on `today` (YYYY-MM-DD, local): the calendar on today, a first read of the entries and of the day's captures. */
  openProgress(today: string): void;
  /** Closes the workspace: its state back to the start, answers still on their way dropped. */
  closeProgress(): void;
  /** Reads the entries, the outbox and their freshness again (progress.list sends the outbox first). Never throws: a failure is `progressError`. */
  loadProgress(): Promise<void>;
  /** Today moved on (past midnight, a woken laptop): a calendar left on today moves with it. */
  rollToday(today: string): void;
  /** A person picked `day` (YYYY-MM-DD): it is shown, and scrolled into view. */
  pickDay(day: string): void;
  /** Shows another month (YYYY-MM); an opened entry belongs to its own day and closes. */
  setProgressMonth(month: string): void;
  setProgressStatus(status: string): void;
  setProgressSearch(search: string): void;
  /** Opens entry `id` by its own read (§4 GET /progress/{id}); a failure is `openedEntryProblem`. */
  openEntry(id: string): Promise<void>;
  closeEntry(): void;
  /** Puts a recorded entry in its place and shows its day (the calendar goes to it). */
  applyRecorded(entry: ProgressEntryView): void;
  /**
   * Reads the shown month as CSV (progress.report: RFC 4180, UTF-8, made by the service); answers
   * the file to save, or null when it failed (`reportProblem` says why).
   */
  exportMonth(): Promise<ResultOf<'capture:progress.report'> | null>;
  /** Signs in to the progress service with the saved account (§4 /v1/users/signin); answers the sentence saying so or why not. Never throws. */
  checkProgressSignIn(): Promise<ResultOf<'capture:progress.signin'>>;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The slice's state when the workspace is closed, or opened on `today`. */
const startState = (today: string) => ({
  progressEntries: null,
  progressFresh: null,
  outbox: [],
  progressError: null,
  progressLoading: false,
  progressToday: today,
  progressMonth: today.slice(0, 7),
  progressDay: today,
  progressDayPicks: 0,
  progressStatus: 'all',
  progressSearch: '',
  openedEntry: null,
  openedEntryProblem: null,
  dayCaptures: null,
  dayCapturesProblem: null,
  reportExporting: false,
  reportProblem: null,
});

/** The Progress workspace's slice over its own fields. */
export const progressSlice: StateCreator<ProgressSlice, [], [], ProgressSlice> = (set, get) => {
  // Each opening of the workspace is a visit; an answer carries the visit it was asked in, and one
  // of a closed visit is dropped, as an unmounted view would drop it.
  let visit = 0;
  let open = false;
  const current = (v: number) => open && v === visit;

  const readDayCaptures = (day: string) => {
    const v = visit;
    if (!open) return;
    set({ dayCaptures: null });
    unwrap(api['queue.byDay']({ date: day }))
      .then((list) => {
        if (current(v) && get().progressDay === day) set({ dayCaptures: list, dayCapturesProblem: null });
      })
      .catch((err: unknown) => {
        if (current(v) && get().progressDay === day) set({ dayCapturesProblem: messageOf(err) });
      });
  };
  /** Shows `day` and `month`: an opened entry belongs to the day it was opened on, and the day's captures are read again. */
  const show = (day: string, month: string) => {
    const { progressDay, progressMonth } = get();
    if (day === progressDay && month === progressMonth) return;
    set({ progressDay: day, progressMonth: month, openedEntry: null });
    if (day !== progressDay) readDayCaptures(day);
  };

  return {
    ...startState(localDay()),
    openProgress(today) {
      visit += 1;
      open = true;
      set(startState(today));
      readDayCaptures(today);
      void get().loadProgress();
    },
    closeProgress() {
      visit += 1;
      open = false;
      set(startState(get().progressToday));
    },
    async loadProgress() {
      const v = visit;
      if (!current(v)) return;
      set({ progressLoading: true });
      try {
        const r = await unwrap(api['progress.list']({}));
        if (!current(v)) return;
        const { asOf, offline, offlineReason, project, projectName } = r;
        set({
          progressEntries: r.entries,
          progressFresh: { asOf, offline, offlineReason, project, projectName },
          outbox: r.outbox,
          progressError: null,
        });
      } catch (err) {
        if (current(v)) set({ progressError: messageOf(err) });
      } finally {
        if (current(v)) set({ progressLoading: false });
      }
    },
    rollToday(today) {
      const { progressToday, progressDay } = get();
      if (today === progressToday) return;
      set({ progressToday: today });
      if (progressDay === progressToday) show(today, today.slice(0, 7));
    },
    pickDay(day) {
      show(day, get().progressMonth);
      set({ progressDayPicks: get().progressDayPicks + 1 });
    },
    setProgressMonth(month) {
      show(get().progressDay, month);
    },
    setProgressStatus(progressStatus) {
      set({ progressStatus });
    },
    setProgressSearch(progressSearch) {
      set({ progressSearch });
    },
    async openEntry(id) {
      const v = visit;
      set({ openedEntryProblem: null });
      try {
        const entry = await unwrap(api['progress.get']({ id }));
        if (current(v)) set({ openedEntry: entry });
      } catch (err) {
        if (current(v)) set({ openedEntryProblem: `Entry ${id} could not be read: ${messageOf(err)}` });
      }
    },
    closeEntry() {
      set({ openedEntry: null });
    },
    applyRecorded(entry) {
      set({ progressEntries: [...(get().progressEntries ?? []).filter((x) => x.id !== entry.id), entry] });
      show(entry.date, entry.date.slice(0, 7));
    },
    async exportMonth() {
      const v = visit;
      set({ reportProblem: null, reportExporting: true });
      try {
        return await unwrap(api['progress.report']({ month: get().progressMonth }));
      } catch (err) {
        if (current(v)) set({ reportProblem: `The month could not be exported: ${messageOf(err)}` });
        return null;
      } finally {
        if (current(v)) set({ reportExporting: false });
      }
    },
    async checkProgressSignIn() {
      try {
        return await unwrap(api['progress.signin']());
      } catch (err) {
        return { signedIn: false, message: messageOf(err) };
      }
    },
  };
};
