/**
 * Capture times as people read and type them: in local time with the UTC offset shown, while
 * what is sent stays ISO 8601 with a zone (capture-upload-interface.md §4.4 captureDateTime).
 */

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

/** The zone offset of a moment as `+01:00` / `-05:00` (local time zone of this computer). */
function offsetOf(d: Date): string {
  const minutes = -d.getTimezoneOffset();
  return `${minutes < 0 ? '-' : '+'}${pad(Math.trunc(minutes / 60))}:${pad(minutes % 60)}`;
}

/** An ISO 8601 time as the value of an `<input type="datetime-local" step="1">` (local wall time, seconds), or '' when unreadable. */
export function toLocalInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** A `datetime-local` value (local wall time) as ISO 8601 with this computer's offset then, or undefined when it is not a time. */
export function fromLocalInput(value: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return undefined;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  if (Number.isNaN(d.getTime())) return undefined;
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${offsetOf(d)}`;
}

/** The label beside a local time field: `UTC+01:00`. */
export function zoneLabel(value: string): string {
  const iso = fromLocalInput(value);
  return `UTC${iso ? iso.slice(-6) : offsetOf(new Date())}`;
}
