import { useEffect, useState } from 'react';
import type { OutboxItemView, ProgressEntryView } from '../../../../shared/ipc.js';
import { localDate } from '../../../../shared/when.js';
import { api, unwrap } from '../../api.js';

/** The statuses an entry can be recorded with (progress-records-interface.md §2). */
export const STATUSES = ['In Progress', 'Completed'] as const;
type Status = (typeof STATUSES)[number];
type Field = 'date' | 'status' | 'details';

/** Days ahead of today beyond which a date is asked about before it is sent. */
const FAR_AHEAD_DAYS = 31;

/** Whole days from `from` to `to` (both YYYY-MM-DD), negative when `to` is earlier; 0 when either is not a date. */
function daysBetween(from: string, to: string): number {
  const ms = Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`);
  return Number.isNaN(ms) ? 0 : Math.round(ms / 86_400_000);
}

/**
 * The form to record one entry (§4 POST /progress): validated here, sent once, the service's
 * refusal shown at the form. A new entry's date starts on `today` (whatever day the calendar
 * shows) and can be changed. While the service cannot be reached the entry is kept
 * in the outbox (`onQueued`) and the form says so.
 * The date follows today past midnight until the person picks one, and another day than today
 * is said beside it before sending (a recorded entry cannot be changed).
 * With `editing`, an outbox entry (refused, or waiting) is opened in it, the service's message
 * beside the field it names; sending puts it back in the outbox and sends it (`capture:progress.revise`).
 */
export function RecordForm(props: {
  today: string;
  editing: OutboxItemView | null;
  onRecorded: (e: ProgressEntryView) => void;
  onQueued: (item: OutboxItemView) => void;
  onEditDone: () => void;
}) {
  const { today, editing, onRecorded, onQueued, onEditDone } = props;
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
    try {
      const r = editing
        ? await unwrap(api['progress.revise']({ id: editing.id, date, status, details }))
        : await unwrap(api['progress.create']({ date, status, details }));
      const queued = 'queued' in r ? r.queued : r.item;
      if (queued?.state === 'refused') {
        setProblem(queued.error);
        setProblemField(queued.field);
        return;
      }
      setDetails('');
      setTouched(false);
      setDate(today);
      setDateChosen(false);
      if (r.entry) {
        setDone(`Recorded ${r.entry.id} for ${localDate(r.entry.date)}.`);
        onRecorded(r.entry);
      } else if (queued) {
        setDone(
          `The progress service cannot be reached: the entry for ${localDate(queued.date)} is kept on this computer and sent when it is back.`,
        );
        onQueued(queued);
      }
      if (editing) onEditDone();
    } catch (err) {
      setProblem((err as Error).message);
    } finally {
      setSending(false);
    }
  };

  // The service's message beside the field it names; a message naming none stays under the form.
  const at = (f: Field) => (problem && problemField === f ? problem : null);
  const fieldError = (f: Field) =>
    at(f) && (
      <span id={`${f}-refusal`} className="error" data-testid={`${f}-refusal`}>
        {at(f)}
      </span>
    );

  const heading = !editing
    ? 'Record progress'
    : editing.state === 'refused'
      ? 'Correct a refused entry'
      : 'Correct an entry waiting to be sent';
  return (
    <section className="panel" aria-label={heading}>
      <h3>{heading}</h3>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <label>
          Date
          <input
            type="date"
            required
            value={date}
            aria-invalid={Boolean(at('date'))}
            aria-describedby={at('date') ? 'date-refusal' : undefined}
            onChange={(e) => {
              setDate(e.target.value);
              setDateChosen(true);
            }}
          />
        </label>
        {fieldError('date')}
        {/* A recorded entry can never be changed (progress-records-interface.md §4): another day is said before it is sent. */}
        {date && date !== today && (
          <span className="form-note" data-testid="other-day">
            You are recording for {localDate(date, { weekday: true })}, not today.
          </span>
        )}
        <label>
          Status
          <select
            value={status}
            aria-invalid={Boolean(at('status'))}
            aria-describedby={at('status') ? 'status-refusal' : undefined}
            onChange={(e) => setStatus(e.target.value as Status)}
          >
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        {fieldError('status')}
        <label>
          Details
          <textarea
            rows={4}
            value={details}
            aria-invalid={showMissing || Boolean(at('details'))}
            aria-describedby={at('details') ? 'details-refusal details-hint' : 'details-hint'}
            placeholder="What was done, where (structure, level, gridlines)"
            onChange={(e) => setDetails(e.target.value)}
            onBlur={() => setTouched(true)}
          />
        </label>
        {fieldError('details')}
        <span id="details-hint" className={showMissing ? 'error' : 'muted'}>
          {showMissing ? 'Say what was done.' : `${details.trim().length} characters`}
        </span>
        {problem && !problemField && (
          <p className="error" role="alert">
            {problem}
          </p>
        )}
        {problem && problemField && (
          <p className="sr-only" role="alert">
            {problem}
          </p>
        )}
        {done && !problem && (
          <p className="muted" role="status">
            {done}
          </p>
        )}
        <button type="submit" className="primary" disabled={sending}>
          {sending ? 'Sending…' : editing ? 'Send again' : 'Record entry'}
        </button>
        {editing && (
          <button type="button" onClick={onEditDone}>
            Cancel
          </button>
        )}
      </form>
    </section>
  );
}
