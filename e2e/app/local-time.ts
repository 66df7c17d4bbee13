/** Two digits, zero-padded: 7 → "07". */
const pad = (n: number) => String(n).padStart(2, '0');

/** The calendar day of `d` (default now) on this computer's clock, as YYYY-MM-DD (the form the office screens key days by). */
export const localDay = (d = new Date()): string => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

/**
 * This computer's zone offset at `d` (default now) as ISO 8601 writes it, `+01:00` / `-05:00`: a
 * time sent with it reads as the same wall time here.
 */
export const zoneOffset = (d = new Date()): string => {
  const m = -d.getTimezoneOffset();
  return `${m < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(m) / 60))}:${pad(Math.abs(m) % 60)}`;
};
