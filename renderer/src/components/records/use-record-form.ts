import { useEffect, useState } from 'react';
import { localDate } from '../../../../shared/when.js';
import { useApp } from '../../store.js';

/** The statuses an entry can be recorded with (progress-records-interface.md §2). */
export const STATUSES = ['In Progress', 'Completed'] as const;
/** One of {@link STATUSES}. */
export type Status = (typeof STATUSES)[number];
/** A field of the form the service's refusal can name. */
export type Field = 'date' | 'status' | 'details';

/** Days ahead of today beyond which a date is asked about before it is sent. */
const FAR_AHEAD_DAYS = 31;

/** Whole days from `from` to `to` (both YYYY-MM-DD), negative when `to` is earlier; 0 when either is not a date. */
function daysBetween(from: string, to: string): number {
  const ms = Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`);
  return Number.isNaN(ms) ? 0 : Math.round(ms / 86_400_000);
}

/**
 * The record form's state and its send (§4 POST /progress, or `capture:progress.revise` for the
 * outbox entry being corrected, `outboxEditing`; outbox-slice.ts sendEntry): the date follows
 * today until the person picks one, a date more than {@link FAR_AHEAD_DAYS} days ahead is sent
 * only when asked twice, a refusal is kept with the field it names. Never throws: a failure is
 * the `problem` it shows.
 */
export function useRecordForm() {
  const today = useApp((s) => s.progressToday);
  const editing = useApp((s) => s.outboxEditing);
  const sendEntry = useApp((s) => s.sendEntry);
  const [date, setDate] = useState(today);
  // A date the person typed stays; an untouched one follows `today` past midnight.
  const [dateChosen, setDateChosen] = useState(false);
  // A date far ahead (a typo of the year) is sent only once the person confirms it.
  const [farConfirmed, setFarConfirmed] = useState<string | null>(null);
  const [status, setStatus] = useState<Status>('In Progress');
  const [details, setDetails] = useState('');
  const [touched, setTouched] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [problemField, setProblemField] = useState<Field | null>(null);
  const [sending, setSending] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  useEffect(() => {
    setTouched(false);
    if (editing) {
      setDone(null);
      setDate(editing.date);
      setStatus((STATUSES as readonly string[]).includes(editing.status) ? (editing.status as Status) : 'In Progress');
      setDetails(editing.details);
      setProblem(editing.error);
      setProblemField(editing.field);
    } else if (!dateChosen) {
      setDate(today);
    }
  }, [editing, today, dateChosen]);
  useEffect(() => {
    if (editing) return;
    setProblem(null);
    setProblemField(null);
  }, [editing]);
  const detailsMissing = details.trim() === '';
  const showMissing = detailsMissing && touched;

  const submit = async () => {
    setTouched(true);
    if (detailsMissing || sending) return;
    // A date field emptied or half typed: said here as a sentence, never as the IPC dispatch's refusal of the request.
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
      setProblemField('date');
      setProblem('Choose the day this entry is for: the date is empty or not a whole date.');
      return;
    }
    if (daysBetween(today, date) > FAR_AHEAD_DAYS && farConfirmed !== date) {
      setFarConfirmed(date);
      setProblemField('date');
      setProblem(
        `${localDate(date, { weekday: true })} is ${daysBetween(today, date)} days from today, and a recorded entry cannot be changed. Press ${editing ? 'Send again' : 'Record entry'} again to record it for that day, or correct the date.`,
      );
      return;
    }
    setSending(true);
    setProblem(null);
    setProblemField(null);
    const r = await sendEntry({ date, status, details });
    setSending(false);
    if (r.kind === 'failed') return setProblem(r.message);
    if (r.kind === 'refused') {
      setProblem(r.error);
      setProblemField(r.field);
      return;
    }
    setDetails('');
    setTouched(false);
    setDate(today);
    setDateChosen(false);
    if (r.kind === 'recorded') setDone(`Recorded ${r.entry.id} for ${localDate(r.entry.date)}.`);
    else if (r.kind === 'queued')
      setDone(
        `The progress service cannot be reached: the entry for ${localDate(r.item.date)} is kept on this computer and sent when it is back.`,
      );
  };

  return {
    date,
    setDate,
    setDateChosen,
    status,
    setStatus,
    details,
    setDetails,
    setTouched,
    problem,
    problemField,
    sending,
    done,
    showMissing,
    submit,
  };
}
