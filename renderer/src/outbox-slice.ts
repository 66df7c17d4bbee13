import type { StateCreator } from 'zustand';
import type { ArgsOf, OutboxItemView, ProgressEntryView } from '../../shared/ipc.js';
import { api, unwrap } from './api.js';
import type { ProgressSlice } from './progress-slice.js';

/** How long a discarded entry can be taken back before it leaves the outbox (ms). */
export const UNDO_MS = 6_000;

/** An entry as the record form sends it (§4 POST /progress: its date YYYY-MM-DD, status and details). */
type EntryInput = ArgsOf<'capture:progress.create'>;

/**
 * What became of an entry sent from the form: recorded by the service; kept in the outbox because
 * the service cannot be reached; refused by the service (its message, and the field it names or
 * null); or failed before any answer (the main process's sentence).
 */
type SendOutcome =
  | { kind: 'recorded'; entry: ProgressEntryView }
  | { kind: 'queued'; item: OutboxItemView }
  | { kind: 'refused'; error: string | null; field: OutboxItemView['field'] }
  | { kind: 'failed'; message: string }
  | { kind: 'sent' };

/** A discard the person can still take back: the entry, and when it is carried out (ms since 1970). */
interface PendingDiscard {
  item: OutboxItemView;
  at: number;
}

/**
 * The outbox's slice of the one store (store.ts): entries recorded while the progress service
 * could not be reached (their list is the progress slice's `outbox`, as each read answers it),
 * the one opened in the form to be corrected, and a discard waiting {@link UNDO_MS} with "Undo"
 * before it is carried out (docs/decisions/0011-outbox-errors.md). The discard's own timer is
 * office-timers.ts's: it calls {@link OutboxSlice.settleDiscard} at `outboxDiscarding.at`.
 */
export interface OutboxSlice {
  /** The outbox entry opened in the form to be corrected and sent again, or null (the form records a new entry). */
  outboxEditing: OutboxItemView | null;
  /** The discard that can still be taken back, or null. */
  outboxDiscarding: PendingDiscard | null;
  /** Why a discard was not carried out, or null. */
  outboxProblem: string | null;
  /**
   * Sends an entry from the form: a new one (progress.create, recorded once: a lost answer is
   * looked up before sending again), or the one being corrected (progress.revise: back in the
   * outbox and sent). A recorded entry is put in its day, which the calendar shows; a kept one is
   * added to the outbox and the entries are said to be the kept copy. Never throws.
   */
  sendEntry(input: EntryInput): Promise<SendOutcome>;
  /** Opens an outbox entry in the form. */
  editOutbox(item: OutboxItemView): void;
  /** Closes the entry being corrected (sent, or Cancel) and reads the entries again. */
  stopEditing(): void;
  /** Discards an entry after {@link UNDO_MS} (`now`, ms since 1970, is when it was asked); a discard already pending is carried out at once. */
  discardOutbox(item: OutboxItemView, now?: number): void;
  /** Takes back the pending discard: the entry stays. */
  undoDiscard(): void;
  /** Carries out the pending discard now (its time came, or the workspace closes), then reads the entries again. */
  settleDiscard(): Promise<void>;
  /** The workspace closes: a discard not taken back is carried out, the rest back to the start, answers still on their way dropped. */
  closeOutbox(): void;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The outbox's slice over its own fields and the progress slice it reads and fills. */
export const outboxSlice: StateCreator<OutboxSlice & ProgressSlice, [], [], OutboxSlice> = (set, get) => {
  // Incremented on close: an answer asked before it is dropped, as a closed view would drop it.
  let visit = 0;

  const carryOut = async (id: number) => {
    const v = visit;
    try {
      await unwrap(api['progress.discard']({ id }));
      if (v === visit) set({ outboxProblem: null });
    } catch (err) {
      if (v === visit) set({ outboxProblem: `The entry could not be discarded: ${messageOf(err)}` });
    }
    await get().loadProgress();
  };

  return {
    outboxEditing: null,
    outboxDiscarding: null,
    outboxProblem: null,
    async sendEntry(input) {
      const v = visit;
      const editing = get().outboxEditing;
      try {
        const r = editing
          ? await unwrap(api['progress.revise']({ id: editing.id, ...input }))
          : await unwrap(api['progress.create'](input));
        const queued = 'queued' in r ? r.queued : r.item;
        if (queued?.state === 'refused') return { kind: 'refused', error: queued.error, field: queued.field };
        let outcome: SendOutcome = { kind: 'sent' };
        if (v !== visit) return outcome;
        if (r.entry) {
          get().applyRecorded(r.entry);
          outcome = { kind: 'recorded', entry: r.entry };
        } else if (queued) {
          const fresh = get().progressFresh;
          set({
            outbox: [...get().outbox.filter((i) => i.id !== queued.id), queued],
            progressFresh: fresh && { ...fresh, offline: true },
          });
          outcome = { kind: 'queued', item: queued };
        }
        if (editing) get().stopEditing();
        return outcome;
      } catch (err) {
        return { kind: 'failed', message: messageOf(err) };
      }
    },
    editOutbox(item) {
      set({ outboxEditing: item });
    },
    stopEditing() {
      set({ outboxEditing: null });
      void get().loadProgress();
    },
    discardOutbox(item, now = Date.now()) {
      const before = get().outboxDiscarding;
      set({ outboxDiscarding: { item, at: now + UNDO_MS } });
      if (before) void carryOut(before.item.id);
    },
    undoDiscard() {
      set({ outboxDiscarding: null });
    },
    async settleDiscard() {
      const pending = get().outboxDiscarding;
      if (!pending) return;
      set({ outboxDiscarding: null });
      await carryOut(pending.item.id);
    },
    closeOutbox() {
      const pending = get().outboxDiscarding;
      // Carried out as part of the visit that asked for it: its answer, coming after, is dropped.
      if (pending) void carryOut(pending.item.id);
      visit += 1;
      set({ outboxEditing: null, outboxDiscarding: null, outboxProblem: null });
    },
  };
};
