import { useId, useState } from 'react';
import type { QueueCapture } from '../../../../shared/ipc.js';
import { fromLocalInput, toLocalInput, zoneLabel } from '../../local-time.js';
import { useApp } from '../../store.js';

/**
 * Corrects a capture the service refused and registers it again (§4.4): structure and design by
 * name, interior or exterior, and the capture time in local time with its UTC offset shown.
 */
export function CaptureEditor({ capture, onDone }: { capture: QueueCapture; onDone(): void }) {
  const structures = useApp((s) => s.settings?.structures ?? []);
  const editCapture = useApp((s) => s.editCapture);
  const uid = useId();
  const [structure, setStructure] = useState(
    structures.some((s) => s.id === capture.structure) ? capture.structure : '',
  );
  const [design, setDesign] = useState(capture.design ?? '');
  const [type, setType] = useState(capture.type);
  const [time, setTime] = useState(toLocalInput(capture.capturedAt));
  const designs = structures.find((s) => s.id === structure)?.designs ?? [];
  const capturedAt = fromLocalInput(time);
  const ready = structure !== '' && capturedAt !== undefined;
  return (
    <form
      className="capture-editor"
      aria-label={`Correct ${capture.label}`}
      onSubmit={(e) => {
        e.preventDefault();
        if (!ready) return;
        void editCapture(capture.id, { structure, design: design || undefined, type, capturedAt }).then(
          (ok) => ok && onDone(),
        );
      }}
    >
      <label>
        Structure
        <select value={structure} onChange={(e) => (setStructure(e.target.value), setDesign(''))} required>
          <option value="">Choose…</option>
          {structures.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Design
        <select value={design} onChange={(e) => setDesign(e.target.value)}>
          <option value="">None</option>
          {designs.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
        </select>
      </label>
      <fieldset>
        <legend>Type</legend>
        {(['interior', 'exterior'] as const).map((t) => (
          <label key={t} className="inline">
            <input type="radio" name={`${uid}-type`} checked={type === t} onChange={() => setType(t)} />
            {t === 'interior' ? 'Interior' : 'Exterior'}
          </label>
        ))}
      </fieldset>
      <label>
        Capture time ({zoneLabel(time)})
        <input
          type="datetime-local"
          step={1}
          value={time}
          onChange={(e) => setTime(e.target.value)}
          aria-invalid={capturedAt === undefined}
        />
      </label>
      <div className="actions">
        <button className="primary" type="submit" disabled={!ready}>
          Register again
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
