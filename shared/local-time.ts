/**
 * Capture times as a person edits them (issue #10 item 7): the value of an
 * `<input type="datetime-local">` in this computer's time zone, and back to the ISO 8601 with a
 * zone that capture-upload-interface.md §4.4 (`captureDateTime`) asks for.
 */

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/**
 * An ISO 8601 time as a datetime-local value in local time, to the second
 * ("2026-11-20T15:04:05"); undefined when `iso` does not parse.
 */
export function toLocalInput(iso: string): string | undefined {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return undefined;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** The local zone's offset at `date` as "+01:00" / "-05:00" / "+00:00" (daylight saving included). */
export function offsetOf(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  return `${minutes < 0 ? '-' : '+'}${pad(Math.trunc(minutes / 60))}:${pad(minutes % 60)}`;
}

/**
 * A datetime-local value ("2026-11-20T15:04" or with seconds) read as local time, as ISO 8601
 * with the local offset of that moment ("2026-11-20T15:04:00+01:00"); undefined when the value
 * is not a whole date-time. A wall time that does not exist (skipped at a daylight-saving change)
 * moves forward the way the platform's Date does.
 */
export function fromLocalInput(value: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, s);
  if (Number.isNaN(date.getTime()) || date.getMonth() !== mo - 1) return undefined;
  const local = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  return `${local}${offsetOf(date)}`;
}

/** "UTC+01:00": the offset a person reads beside a local time; from an ISO 8601 time. */
export function utcOffsetLabel(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : `UTC${offsetOf(d)}`;
}
