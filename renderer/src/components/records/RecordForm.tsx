import { useEffect, useState } from 'react';
import type { OutboxItemView, ProgressEntryView } from '../../../../shared/ipc.js';
import { api, unwrap } from '../../api.js';

/** The statuses an entry can be recorded with (progress-records-interface.md §2). */
export const STATUSES = ['In Progress', 'Completed'] as const;

/**
 * The form to record one entry (§4 POST /progress): validated here, sent once, the service's
 * refusal shown at the form. While the service cannot be reached the entry is kept in the
 * outbox (`onQueued`) and the form says so.
 */
export function RecordForm(props: { defaultDate: string; onRecorded: (e: ProgressEntryView) => void; onQueued: (item: OutboxItemView) => void }) {
  const { defaultDate, onRecorded, onQueued } = props;
  const [date, setDate] = useState(defaultDate);
  const [status, setStatus] = useState<(typeof STATUSES)[number]>('In Progress');
  const [details, setDetails] = useState('');
  const [touched, setTouched] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  useEffect(() => setDate(defaultDate), [defaultDate]);
  const detailsMissing = details.trim() === '';
  const showMissing = detailsMissing && touched;

  const submit = async () => {
    setTouched(true);
    if (detailsMissing || sending) return;
    setSending(true);
    setProblem(null);
    try {
      const r = await unwrap(api['progress.create']({ date, status, details }));
      setDetails('');
      setTouched(false);
      if (r.entry) {
        setDone(`Recorded ${r.entry.id} for ${r.entry.date}.`);
        onRecorded(r.entry);
      } else if (r.queued) {
        setDone(`The progress service cannot be reached: the entry for ${r.queued.date} is kept on this computer and sent when it is back.`);
        onQueued(r.queued);
      }
    } catch (err) {
      setProblem((err as Error).message);
    } finally {
      setSending(false);
    }
  };

  return (
    <section className="panel" aria-label="Record progress">
      <h3>Record progress</h3>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <label>
          Date
          <input type="date" required value={date} onChange={(e) => setDate(e.target.value)} />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Details
          <textarea
            rows={4}
            value={details}
            aria-invalid={showMissing}
            aria-describedby="details-hint"
            placeholder="What was done, where (structure, level, gridlines)"
            onChange={(e) => setDetails(e.target.value)}
            onBlur={() => setTouched(true)}
          />
        </label>
        <span id="details-hint" className={showMissing ? 'error' : 'muted'}>
          {showMissing ? 'Say what was done.' : `${details.trim().length} characters`}
        </span>
        {problem && (
          <p className="error" role="alert">
            {problem}
          </p>
        )}
        {done && !problem && (
          <p className="muted" role="status">
            {done}
          </p>
        )}
        <button type="submit" className="primary" disabled={sending}>
          {sending ? 'Recording…' : 'Record entry'}
        </button>
      </form>
    </section>
  );
}
