import { describe, expect, it } from 'vitest';
import type { QueueTotals } from './ipc.js';
import { queueState, queueStateLine, retryTime } from './queue-state.js';
import { queueTotals } from './testing/queue-fixtures.js';

const t = queueTotals;
const at = (hhmm: string) => new Date(`2026-11-25T${hhmm}:00`).getTime();

describe('queueState', () => {
  it('says what the whole queue does, the most hopeful first', () => {
    const h = (x: Partial<QueueTotals>, input = {}) => queueState(t(x), input).headline;
    expect(h({ files: 200, uploading: 4, retrying: 10, needYou: 2 })).toBe('Uploading');
    expect(h({ files: 200, retrying: 200 })).toBe('Waiting to retry');
    expect(h({ files: 3, completed: 2, paused: 1 })).toBe('Paused');
    expect(h({ files: 3, completed: 1, failed: 2, needYou: 2 })).toBe('Needs you (2)');
    expect(h({ files: 201, completed: 200, cancelled: 1 })).toBe('All 200 files uploaded');
    // Never plain green when captures carry warnings.
    expect(queueState(t({ files: 50, completed: 50, capturesWarned: 2 }))).toMatchObject({
      kind: 'done-with-warnings',
      headline: 'All 50 files uploaded, 2 captures with warnings',
      tone: 'retrying',
    });
    expect(h({ files: 2, completed: 2 }, { hold: { until: '2026-11-25T07:00:00Z', by: 'person' } })).toBe(
      'All 2 files uploaded',
    );
  });

  it('a card pulled out mid-upload is one state with the recordings waiting, not a failure, even while other files upload or storage is out', () => {
    const s = queueState(
      t({
        files: 98,
        completed: 2,
        queued: 94,
        uploading: 2,
        cardRemoved: { cards: 1, recordings: 48 },
        outage: { where: 'storage', since: at('19:42'), cause: 'x' },
      }),
    );
    expect(s).toMatchObject({
      kind: 'card-removed',
      headline: 'Card removed: put it back to continue (48 recordings waiting)',
      tone: 'paused',
    });
    expect(queueStateLine(s)).toBe(
      'Card removed: put it back to continue (48 recordings waiting) — uploads resume by themselves once it is back, under any name · nothing lost',
    );
    expect(queueState(t({ files: 6, queued: 6, cardRemoved: { cards: 2, recordings: 1 } })).headline).toBe(
      '2 cards removed: put them back to continue (1 recording waiting)',
    );
    // Named as the person reads them on the card.
    expect(
      queueState(t({ files: 6, queued: 6, cardRemoved: { cards: 1, recordings: 3, names: ['X4_CARD'] } })).headline,
    ).toBe('Card X4_CARD removed: put it back to continue (3 recordings waiting)');
    expect(
      queueState(t({ files: 6, queued: 6, cardRemoved: { cards: 2, recordings: 4, names: ['X4_CARD', 'GO3'] } }))
        .headline,
    ).toBe('2 cards removed (X4_CARD, GO3): put them back to continue (4 recordings waiting)');
    // The credentials refused stop everything: that is said first.
    expect(
      queueState(t({ files: 6, queued: 6, cardRemoved: { cards: 1, recordings: 3 } }), {
        blocked: 'The service refuses the API key.',
      }).kind,
    ).toBe('needs-you');
  });

  it('credentials refused read "Needs you", not "Stopped": nothing moves until a person corrects them', () => {
    const s = queueState(t({ files: 2, completed: 1, queued: 1 }), { blocked: 'The service refuses the API key.' });
    expect(s).toMatchObject({
      kind: 'needs-you',
      headline: 'Needs you',
      tone: 'needs-you',
      detail: 'The service refuses the API key. Nothing queued is lost.',
    });
    expect(queueStateLine(s)).toBe('Needs you — The service refuses the API key. Nothing queued is lost.');
  });

  it('a storage outage reads "Waiting for storage" with since, plain cause, next try and "nothing lost", even while files still count as uploading', () => {
    const now = at('19:45');
    const s = queueState(
      t({
        files: 10,
        completed: 3,
        uploading: 4,
        retrying: 3,
        bytesPerSecond: 0,
        bytesRemaining: 1000,
        nextRetryAt: at('19:47'),
        outage: { where: 'storage', since: at('19:42'), cause: 'x (HTTP 503 on PUT /bucket/key)' },
      }),
      { now, locale: 'en-GB' },
    );
    expect(s).toMatchObject({
      kind: 'waiting-storage',
      headline: 'Waiting for storage',
      tone: 'retrying',
      since: at('19:42'),
      etaSeconds: null,
    });
    expect(queueStateLine(s)).toBe(
      'Waiting for storage — since 19:42 · storage unavailable · next try 19:47 · nothing lost',
    );
    const gateway = queueState(
      t({
        files: 1,
        retrying: 1,
        outage: { where: 'gateway', since: at('19:42'), cause: 'HTTP 502 on POST /presign' },
      }),
      { now },
    );
    expect(gateway.headline).toBe('Waiting for the gateway');
  });

  it('a retry time is never shown in the past', () => {
    const now = at('19:45');
    expect(retryTime(at('19:44'), now)).toBe('any moment');
    expect(retryTime(at('19:46'), now, 'en-GB')).toBe('19:46');
    expect(queueState(t({ files: 1, retrying: 1, nextRetryAt: at('19:44') }), { now }).detail).toBe(
      'next try any moment · nothing lost',
    );
  });

  it('a queue-wide hold reads "Paused until HH:MM"', () => {
    const s = queueState(t({ files: 2, queued: 2 }), {
      hold: { until: new Date(at('07:00')).toISOString(), by: 'person' },
      now: at('03:00'),
      locale: 'en-GB',
    });
    expect(s.headline).toBe('Paused until 07:00');
  });

  it('the ETA covers every byte left (files waiting to retry included) at the acknowledged speed, and is unknown when nothing is acknowledged', () => {
    expect(
      queueState(t({ files: 3, uploading: 1, retrying: 2, bytesRemaining: 3000, bytesPerSecond: 100 })).etaSeconds,
    ).toBe(30);
    expect(queueState(t({ files: 3, uploading: 1, bytesRemaining: 3000, bytesPerSecond: 0 })).etaSeconds).toBeNull();
  });

  it('writes its times in the locale’s own clock, the date before them when not today', () => {
    const hold = { until: new Date(at('07:00')).toISOString(), by: 'person' as const };
    expect(queueState(t({ files: 2, queued: 2 }), { hold, now: at('03:00'), locale: 'en-US' }).headline).toBe(
      'Paused until 7:00 AM',
    );
    expect(queueState(t({ files: 2, queued: 2 }), { hold, now: at('03:00'), locale: 'en-GB' }).headline).toBe(
      'Paused until 07:00',
    );
    const outage = t({
      files: 1,
      retrying: 1,
      nextRetryAt: at('19:47'),
      outage: { where: 'storage', since: at('19:42'), cause: 'x (HTTP 503 on PUT /b/k)' },
    });
    expect(queueState(outage, { now: at('19:45'), locale: 'en-US' }).detail).toBe(
      'since 7:42 PM · storage unavailable · next try 7:47 PM · nothing lost',
    );
    // A retry after midnight is not read as today's: the date comes first, in the locale's order.
    const tomorrow = new Date('2026-11-26T00:10:00').getTime();
    expect(retryTime(tomorrow, at('23:50'), 'en-GB')).toBe('26 Nov 00:10');
    expect(retryTime(tomorrow, at('23:50'), 'en-US')).toBe('Nov 26 12:10 AM');
  });
});
