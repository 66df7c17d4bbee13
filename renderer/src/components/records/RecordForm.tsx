import { localDate } from '../../../../shared/when.js';
import { useApp } from '../../store.js';
import type { Field, Status } from './use-record-form.js';
import { STATUSES, useRecordForm } from './use-record-form.js';

/**
 * The form to record one entry (§4 POST /progress): validated here, sent once, the service's
 * refusal shown at the form. A new entry's date starts on today (whatever day the calendar
 * shows) and can be changed. While the service cannot be reached the entry is kept
 * in the outbox and the form says so.
 * The date follows today past midnight until the person picks one, and another day than today
 * is said beside it before sending (a recorded entry cannot be changed).
 * With an outbox entry opened to be corrected (`outboxEditing`: refused, or waiting), its message
 * is beside the field it names; sending puts it back in the outbox and sends it (`capture:progress.revise`).
 */
export function RecordForm() {
  const today = useApp((s) => s.progressToday);
  const editing = useApp((s) => s.outboxEditing);
  const stopEditing = useApp((s) => s.stopEditing);
  const form = useRecordForm();
  const { date, setDate, setDateChosen, status, setStatus, details, setDetails, setTouched } = form;
  const { problem, problemField, sending, done, showMissing, submit } = form;

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
          <button type="button" onClick={stopEditing}>
            Cancel
          </button>
        )}
      </form>
    </section>
  );
}
