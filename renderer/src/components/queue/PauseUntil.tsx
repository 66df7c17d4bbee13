import { useState } from 'react';
import { whenAt } from '../../../../shared/when.js';
import { useApp } from '../../store.js';

/**
 * "Pause until" a time today or tomorrow (local time): a hold of the whole queue, apart from each
 * file's own pause. While a hold is in force, it says until when and by what; a person's hold
 * can be ended now (files paused one by one stay paused), the timetable's ends by itself.
 */
export function PauseUntil() {
  const hold = useApp((s) => s.hold);
  const pauseUntil = useApp((s) => s.pauseUntil);
  const [time, setTime] = useState('07:00');
  if (hold) {
    const until = hold.until ? whenAt(hold.until) : 'resumed';
    return (
      <span className="paused-until" data-testid="paused-until">
        {hold.by === 'timetable' ? `Paused by the timetable until ${until}` : `Paused until ${until}`}{' '}
        {hold.by === 'person' && <button onClick={() => void pauseUntil(null)}>Resume now</button>}
      </span>
    );
  }
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        const [hh, mm] = time.split(':').map(Number);
        const at = new Date();
        at.setHours(hh!, mm!, 0, 0);
        if (at.getTime() <= Date.now()) at.setDate(at.getDate() + 1);
        void pauseUntil(at.toISOString());
      }}
    >
      <label className="inline">
        Pause until
        <input type="time" value={time} onChange={(e) => setTime(e.target.value)} required />
      </label>
      <button type="submit">Pause all until {time || 'then'}</button>
    </form>
  );
}
