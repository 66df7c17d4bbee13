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

  it('tells no duration when the clock was changed during the batch, never a negative one', () => {
    // Started at 19:30 on the 22nd; the clock was then set back a day, and the files completed "on the 21st".
    const entries = [
      e('19:30', 'started', 1),
      e('19:40', 'retry-scheduled', 1, 'Part 1: InternalError (HTTP 500 on PUT /b/k)'),
      e('20:00', 'completed', 1, '', 21),
      e('20:05', 'capture-completed', null, '', 21),
    ];
    const now = Date.parse(at('21:00'));
    const s = nightSummary(entries, () => 100, [], false, [], now);
    expect(s).toMatchObject({
      clockChanged: true,
      durationMs: 0,
      slowestHour: null,
      longestOutage: null,
      datedAhead: 0,
    });
    const lines = summaryLines(s, { now, locale: 'en-GB' });
    expect(lines.slice(0, 2)).toEqual([
      'Started at 19:30; finished at 21 Nov 20:00: 1 capture (1 file), 100 B uploaded.',
      "The computer's clock was changed during this batch: the times above are as it read them, and how long it took is not known.",
    ]);
    expect(lines.join('\n')).not.toMatch(/-\d|after/);
  });

  it('leaves out the lines dated after now (a batch run with the clock at 2099), and says how many', () => {
    const ahead = (kind: string, fileId: number | null = null) => ({
      ...e('03:00', kind, fileId),
      at: '2099-01-01T03:00:00.000Z',
    });
    const entries = [
      e('19:30', 'started', 1),
      e('19:50', 'completed', 1),
      ahead('started', 2),
      ahead('completed', 2),
      ahead('capture-completed'),
    ];
    const now = Date.parse(at('21:00'));
    const s = nightSummary(entries, () => 100, [], false, [], now);
    expect(s).toMatchObject({ files: 1, captures: 0, bytes: 100, datedAhead: 3, clockChanged: false });
    expect(summaryLines(s, { now, locale: 'en-GB' })).toEqual([
      'Started at 19:30; finished at 19:50 after 20 min 00 s: 0 captures (1 file), 100 B uploaded.',
      'No outage.',
      "3 lines of the log are dated after now (the computer's clock was changed since they were written), not counted here.",
      'Nothing needs you.',
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
