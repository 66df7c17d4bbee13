import { useState } from 'react';
import { whenAt } from '../../../../shared/when.js';
import { useApp } from '../../store.js';
import { clockText, parseClockTime } from './clock-time.js';

/** The time offered first: the next morning's start. */
const MORNING = { hours: 7, minutes: 0 };

/**
 * "Pause until" a time today or tomorrow (local time): a hold of the whole queue, apart from each
 * file's own pause. While a hold is in force, it says until when and by what; a person's hold
 * can be ended now (files paused one by one stay paused), the timetable's ends by itself. The
 * time is typed and shown in the locale's clock, as every other time is (clock-time.ts).
 */
export function PauseUntil() {
  const hold = useApp((s) => s.hold);
  const pauseUntil = useApp((s) => s.pauseUntil);
  const [text, setText] = useState(() => clockText(MORNING));
  const time = parseClockTime(text);
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
        if (!time) return;
        const at = new Date();
        at.setHours(time.hours, time.minutes, 0, 0);
        if (at.getTime() <= Date.now()) at.setDate(at.getDate() + 1);
        void pauseUntil(at.toISOString());
      }}
    >
      <label className="inline">
        Pause until
        <input
          type="text"
          className="clock-time"
          value={text}
          onChange={(e) => setText(e.target.value)}
          // Said back in the locale's form once typed ("7.30" becomes "07:30").
          onBlur={() => time && setText(clockText(time))}
          aria-invalid={!time}
          aria-describedby={time ? undefined : 'pause-until-error'}
          autoComplete="off"
          spellCheck={false}
          required
        />
      </label>
      {!time && (
        <span id="pause-until-error" className="field-error" role="alert">
          Type a time such as {clockText(MORNING)}.
        </span>
      )}
      <button type="submit" disabled={!time}>
        Pause all until {time ? clockText(time) : 'then'}
      </button>
    </form>
  );
}
