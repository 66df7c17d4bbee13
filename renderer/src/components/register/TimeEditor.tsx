import { fromLocalInput, toLocalInput, zoneLabel } from '../../local-time.js';

/** A date-time control in local time with the offset beside it; reports ISO 8601 with that offset. */
export function TimeEditor({ iso, onChange, onDone }: { iso: string; onChange(iso: string): void; onDone(): void }) {
  return (
    <div className="time-edit">
      <label>
        Capture time (local)
        <input
          type="datetime-local"
          step={1}
          defaultValue={toLocalInput(iso)}
          onChange={(e) => {
            // The control reports '' while a part is being typed: only whole times are kept.
            const next = fromLocalInput(e.target.value);
            if (next) onChange(next);
          }}
        />
      </label>
      <span className="offset" data-testid="utc-offset">
        {zoneLabel(toLocalInput(iso))}
      </span>
      <span className="muted">sent as {iso}</span>
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
