import { describe, expect, it } from 'vitest';
import { summaryLines } from '../shared/night-summary.js';
import { plainCause } from '../shared/causes.js';
import { queueStateLine } from '../shared/queue-state.js';
import { committedTotals } from '../main/queue/totals.js';
import { activityLine } from '../main/cli/log.js';
import { statusOutput } from '../main/cli/status.js';
import { queueSummary } from '../main/status/summary.js';
import { fillQueue } from '../main/testing/fill-queue.js';
import { useTempQueue } from '../main/testing/kit.js';
import { queueHeadline } from '../renderer/src/components/queue/headline.js';

// One wording per cause (docs/outage-words.md): the same outage reads the same in the window's
// headline (the renderer's formatter), the tray (its one line), `capture-uploader status`, the
// morning summary (the app's and `log --summary`, one function) and `capture-uploader log`.

const fresh = useTempQueue('outage-words');

const minutes = (n: number) => n * 60_000;

/**
 * An outage as the engine records it (main/engine/outages/outage-record.ts: the queue's meta and an
 * `outage` activity line) with `cause` in the service's words, a file waiting for its retry with
 * that error, and a capture whose registration waited for the service meanwhile, for longer.
 */
function outage(where: 'storage' | 'gateway', cause: string, registration: string) {
  const q = fresh.queue;
  const [fileId] = fillQueue(q, 1);
  const since = Date.now() - minutes(30);
  const iso = (ms: number) => new Date(ms).toISOString();
  const file = q.file(fileId!)!;
  q.moveFile(fileId!, ['pending'], 'pending', { error: cause, retryAt: Date.now() + minutes(5), transient: true });
  q.meta.setOutage({ where, since, cause });
  const line = (at: number, kind: string, message: string, captureRow: number | null = null) =>
    q.activity.add({ at: iso(at), captureRow, fileId: null, subject: where, kind: kind as never, message });
  line(since - minutes(2), 'started', 'started');
  line(since - minutes(1), 'registration-retry', registration, file.captureRow);
  const entry = line(since, 'outage', cause);
  line(since + minutes(20), 'outage-over', 'answered again');
  line(since + minutes(25), 'registered', 'registered', file.captureRow);
  return entry;
}

describe('one wording per outage cause', () => {
  it.each([
    ['storage', 'InternalError: We encountered an internal error. (HTTP 500 on PUT /b/k)', 'storage unavailable'],
    ['storage', 'SlowDown: Please reduce your request rate. (HTTP 503 on PUT /b/k)', 'storage is busy'],
    ['storage', 'No answer from storage for 60 s: it takes no bytes and answers nothing', 'network down'],
    [
      'gateway',
      'Service Unavailable (HTTP 503 on GET /gateway/upload-service/uploads/u/parts)',
      'capture service unavailable',
    ],
    [
      'gateway',
      'No answer from the capture gateway for 60 s: it accepts the connection and answers nothing',
      'network down',
    ],
    [
      'gateway',
      'The capture gateway answers too slowly: no whole answer for 30 s, its bytes coming slower than the slowest link accepted',
      'the capture service answers too slowly',
    ],
    ['storage', 'No answer from the service: ECONNREFUSED (PUT 127.0.0.1:9000/b/k)', 'network down'],
    [
      'gateway',
      'The service cannot be reached: no route to that network (is this computer connected?) (GET gw:443/x)',
      'service unreachable: check the address and network',
    ],
  ] as const)('%s: %s → %s', (where, cause, words) => {
    // The registration waited with another message (a 503 on add-capture) during the same outage.
    const entry = outage(where, cause, 'Service Unavailable (HTTP 503 on POST /gateway/captures)');
    const q = fresh.queue;
    const totals = { ...committedTotals(q.totals()), outage: q.meta.outage() };

    const screen = queueHeadline(totals).state;
    expect(screen.detail).toContain(` · ${words} · `);
    expect(queueStateLine(screen)).toContain(` · ${words} · `); // the tray's line
    expect(plainCause(q.allFiles()[0]!.error)).toBe(words); // the file's row (FileRow)

    const status = statusOutput(q, 'en-GB');
    expect(status[0]).toContain(` · ${words} · `);
    expect(status.find((l) => l.includes('tried again at'))).toContain(`: ${words} — `);

    const summary = summaryLines(queueSummary(q, new Date(Date.now() - minutes(24 * 60)).toISOString()));
    expect(summary.find((l) => l.startsWith('Longest outage'))).toContain(`(${words})`);

    expect(activityLine(entry, { locale: 'en-GB' })).toContain(`: ${words} — `);
  });

  it.each([
    ['database or disk is full (ENOSPC)', 'the disk is full'],
    [
      'The sign-in service refuses the account (Invalid email or password): fix the email or password',
      'the service refuses the credentials',
    ],
    ['Unauthorized (HTTP 401 on POST /gateway/captures)', 'the service refuses the credentials'],
  ])('a file that needs a person: %s → %s', (error, words) => {
    const q = fresh.queue;
    const [fileId] = fillQueue(q, 1);
    q.moveFile(fileId!, ['pending'], 'failed', { error });
    const entry = q.activity.add({
      at: new Date(Date.now() - minutes(5)).toISOString(),
      captureRow: q.file(fileId!)!.captureRow,
      fileId: fileId!,
      subject: 'VID_0_1.insv',
      kind: 'failed',
      message: error,
    });
    expect(activityLine(entry, { locale: 'en-GB' })).toContain(`: ${words} — `);
    expect(plainCause(q.file(fileId!)!.error)).toBe(words); // the file's row (FileRow)
    expect(statusOutput(q, 'en-GB')).toContain(`      ${words} — ${error}`);
    const summary = summaryLines(queueSummary(q, new Date(Date.now() - minutes(60)).toISOString()));
    expect(summary.some((l) => l.includes(`: ${words}.`))).toBe(true);
  });
});
