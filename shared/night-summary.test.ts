import { describe, expect, it } from 'vitest';
import { localTime, nightSummary, summaryLines } from './night-summary.js';

const at = (hhmm: string, day = 22) =>
  new Date(2026, 10, day, Number(hhmm.slice(0, 2)), Number(hhmm.slice(3, 5))).toISOString();
const e = (time: string, kind: string, fileId: number | null = null, message = '', day = 22) => ({
  at: at(time, day),
  fileId,
  captureRow: 1,
  kind,
  message,
});

describe('the morning summary', () => {
  it('says when the night started and finished, how long, how much, the slowest hour, the longest outage and what needs a person', () => {
    const entries = [
      e('19:30', 'started', 1),
      e('19:50', 'completed', 1),
      e('20:10', 'retry-scheduled', 2, 'Part 3: InternalError (HTTP 500 on PUT /b/k)'),
      e('20:40', 'retry-scheduled', 2, 'again'),
      e('21:05', 'completed', 2),
      e('21:05', 'capture-completed'),
      e('03:12', 'completed', 3, '', 23),
    ];
    const s = nightSummary(
      entries,
      (id) => [0, 100, 200, 300][id],
      [{ subject: 'walk 7', cause: 'the file changed on disk', action: 'Copy it again and add it.' }],
      false,
    );
    expect(s).toMatchObject({ files: 3, captures: 1, bytes: 600, durationMs: (7 * 60 + 42) * 60_000 });
    expect(s.longestOutage).toMatchObject({ ms: 55 * 60_000, cause: 'storage unavailable' });
    const now = Date.parse(at('08:00', 23));
    expect(summaryLines(s, { now, locale: 'en-GB' })).toEqual([
      'Started at 22 Nov 19:30; finished at 03:12 after 7 h 42 min: 1 capture (3 files), 600 B uploaded.',
      'Slowest hour: from 22 Nov 21:30, 0 B.',
      'Longest outage: 55 min 00 s from 22 Nov 20:10 (storage unavailable); nothing was lost.',
      '1 needs you:',
      '  walk 7: the file changed on disk. Copy it again and add it.',
    ]);
  });

  it('has no finish while work is left, and one time format from the locale', () => {
    const s = nightSummary([e('19:30', 'started', 1), e('19:50', 'completed', 1)], () => 5, [], true);
    expect(s.finishedAt).toBeNull();
    const now = Date.parse(at('20:00'));
    expect(summaryLines(s, { now, locale: 'en-GB' })[0]).toBe(
      'Started at 19:30; still going: 0 captures (1 file), 5 B uploaded so far.',
    );
    expect(localTime(Date.parse(at('19:30')), { now, locale: 'en-US' })).toBe('7:30 PM');
  });

  it('tells the outage the engine saw and showed: its start and cause, not the later retries of the files', () => {
    const entries = [
      e('19:30', 'started', 1),
      e('19:31', 'completed', 1),
      // A silent link from 19:32 (its last sign of life), seen and written at 19:33; the files' retries come later.
      {
        ...e('19:32', 'outage', null, 'No answer from storage for 30 s: it takes no bytes and answers nothing'),
        captureRow: null,
      },
      e('19:38', 'retry-scheduled', 2, 'Part 1: No progress for 60 s after the whole part was sent'),
      { ...e('19:54', 'outage-over', null, 'storage answered again'), captureRow: null },
      e('19:56', 'completed', 2),
    ];
    const s = nightSummary(entries, () => 10, [], false);
    expect(s.longestOutage).toEqual({
      from: Date.parse(at('19:32')),
      to: Date.parse(at('19:54')),
      ms: 22 * 60_000,
      cause: 'network down',
    });
  });
});
