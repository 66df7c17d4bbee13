import { describe, expect, it } from 'vitest';
import { captureFullName, captureLabel, captureLabelParts } from './capture-label.js';
import { groupIntoCaptures } from './grouping.js';
import { parseShift, shiftTimes } from './time-shift.js';

const LENSES = ['VID_20261123_080000_00_001.insv', 'VID_20261123_080000_10_001.insv'];

describe('a capture label from its capture time', () => {
  it('names the time given, not the camera clock in the file name', () => {
    // A wall time without a zone is this computer's local time, as the name's own time is.
    expect(captureLabel({ capturedAt: '2026-11-23T09:00:00', fileNames: LENSES })).toBe(
      '2026-11-23 09:00:00 · segment 001 · 2 lenses',
    );
    expect(captureLabel({ capturedAt: '2026-11-23T09:00:00', fileNames: LENSES.slice(0, 1) })).toBe(
      '2026-11-23 09:00:00 · segment 001',
    );
    // Any other video keeps the name a person gave it: there is no camera clock in it.
    expect(captureLabel({ capturedAt: '2026-11-23T09:00:00', fileNames: ['walk.mp4', 'walk.csv'] })).toBe('walk.mp4');
  });

  it('after a +1 h shift reads an hour later, in local time (with the zone when asked)', () => {
    const at = new Date(2026, 10, 23, 8, 0, 0).toISOString(); // 08:00 local, written in UTC
    const [shifted] = shiftTimes([at], parseShift('+1 h')!);
    expect(captureLabel({ capturedAt: at, fileNames: LENSES })).toBe('2026-11-23 08:00:00 · segment 001 · 2 lenses');
    expect(captureLabel({ capturedAt: shifted, fileNames: LENSES })).toBe(
      '2026-11-23 09:00:00 · segment 001 · 2 lenses',
    );
    const minutes = -new Date(2026, 10, 23, 9).getTimezoneOffset();
    const zone = `UTC${minutes < 0 ? '-' : '+'}${String(Math.trunc(Math.abs(minutes) / 60)).padStart(2, '0')}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
    expect(captureLabel({ capturedAt: shifted, fileNames: LENSES }, { zone: true })).toBe(
      `2026-11-23 09:00:00 ${zone} · segment 001 · 2 lenses`,
    );
  });

  it('names the file when the time cannot be read, and never throws', () => {
    expect(captureLabel({ capturedAt: 'soon', fileNames: LENSES })).toBe(
      'VID_20261123_080000 · segment 001 · 2 lenses',
    );
    expect(captureLabel({ fileNames: ['walk.mp4'] })).toBe('walk.mp4');
    expect(captureLabel({ fileNames: [] })).toBe('');
  });

  it('is the label the grouping proposes from the name until a time is chosen', () => {
    const { captures } = groupIntoCaptures(LENSES.map((name, i) => ({ path: `/card/${name}`, name, size: 10 + i })));
    expect(captures[0]!.label).toBe(captureLabel({ capturedAt: '2026-11-23T08:00:00', fileNames: LENSES }));
  });

  it('cuts into the shared date, the time and segment that tell rows apart, and the rest', () => {
    expect(captureLabelParts('2026-11-23 09:00:00 · segment 001 · 2 lenses')).toEqual({
      common: '2026-11-23 ',
      distinct: '09:00:00 · segment 001',
      rest: ' · 2 lenses',
    });
    expect(captureLabelParts('walk.mp4')).toEqual({ common: '', distinct: 'walk.mp4', rest: '' });
    expect(captureFullName('2026-11-23 09:00:00 · segment 001', LENSES)).toBe(
      `2026-11-23 09:00:00 · segment 001 (${LENSES.join(', ')})`,
    );
  });
});
