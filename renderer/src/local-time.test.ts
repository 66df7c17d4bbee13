import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromLocalInput, toLocalInput, zoneLabel } from './local-time.js';

// Berlin: +01:00 in winter, +02:00 in summer, so the offset must follow the date, not today.
const zone = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'Europe/Berlin';
});
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('local capture times', () => {
  it('shows an ISO time in local wall time and reads it back with the offset of that date', () => {
    expect(toLocalInput('2026-11-20T14:04:05Z')).toBe('2026-11-20T15:04:05');
    expect(fromLocalInput('2026-11-20T15:04:05')).toBe('2026-11-20T15:04:05+01:00');
    expect(fromLocalInput('2026-07-01T08:30')).toBe('2026-07-01T08:30:00+02:00');
    expect(Date.parse(fromLocalInput(toLocalInput('2026-07-01T06:30:09.000Z')!)!)).toBe(
      Date.parse('2026-07-01T06:30:09Z'),
    );
  });

  it('labels the offset of the time shown, and refuses what is not a whole date-time', () => {
    expect(zoneLabel('2026-11-20T15:04:05')).toBe('UTC+01:00');
    expect(zoneLabel('2026-07-20T15:04:05')).toBe('UTC+02:00');
    expect(fromLocalInput('2026-11-20')).toBeUndefined();
    expect(toLocalInput('yesterday')).toBe('');
  });
});
