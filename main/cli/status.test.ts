import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { localTime } from '../../shared/night-summary.js';
import { printableJson } from '../../shared/printable.js';
import { printable } from './printable.js';
import { printStatus } from './status.js';
import { setFileState } from '../testing/queue-backdoors.js';
import { stdoutOf, useWorkDir } from '../testing/kit.js';
import { enqueueOne, enqueueRegistered, oneFileRequest, queueIn } from '../testing/queue-rows.js';

const work = useWorkDir('status-test');

const request = oneFileRequest({ path: '/card/evil\nname.mp4', size: 12_000_000 }, '2026-11-20T10:00:00.000Z');

const captureOutput = stdoutOf;

describe('capture-uploader status', () => {
  it('reads the queue while its writer holds it open, with no credentials, one line per record', () => {
    const dir = join(work, 'q');
    const q = queueIn(dir);
    enqueueRegistered(
      q,
      'walk',
      request,
      { path: '/card/evil\nname.mp4', size: 12_000_000 },
      { captureId: 'cap-1', uploadId: 'u1', totalParts: 3 },
    );
    q.recordParts([{ fileId: 1, partNumber: 1, etag: '"abc"' }]);
    const retryAt = Date.now() + 60_000;
    q.moveFile(1, ['pending'], 'pending', { error: 'InternalError (HTTP 500 on PUT /x)', retryAt, transient: true });
    for (const k of Object.keys(process.env).filter((k) => k.startsWith('CAPTURE_'))) vi.stubEnv(k, undefined);

    // A 24-hour locale given: times follow it (the one time format).
    const text = captureOutput(() => printStatus(dir, false, 'en-GB'));
    expect(text.split('\n').filter(Boolean)).toEqual([
      // The queue's state first, as the app's headline and tray say it, with bytes storage acknowledged.
      expect.stringMatching(
        /^Waiting to retry — next try (\d+ \w+ )?\d\d:\d\d · nothing lost · 43% · 5\.0 MiB of 11\.4 MiB stored$/,
      ),
      'capture 1  registered           walk  (id cap-1)',
      '  file 1  pending     43%   11.4 MiB  evil\\nname.mp4',
      expect.stringMatching(
        /^ {6}tried again at (\d+ \w+ )?\d\d:\d\d \(attempt 2\): storage unavailable — InternalError \(HTTP 500 on PUT \/x\)$/,
      ),
    ]);
    const json = JSON.parse(captureOutput(() => printStatus(dir, true, 'en-GB'))) as {
      state: unknown;
      captures: { files: { partsDone: number; bytesDone: number; nextAttemptAt: number }[] }[];
    };
    expect(json.captures[0]!.files[0]).toMatchObject({ partsDone: 1, bytesDone: 5_242_880, nextAttemptAt: retryAt });
    expect(json.state).toEqual({
      kind: 'retrying',
      headline: 'Waiting to retry',
      detail: expect.stringMatching(/^next try (\d+ \w+ )?\d\d:\d\d · nothing lost$/),
      since: null,
      nextTry: retryAt,
      percent: 43,
      filesDone: 0,
      files: 1,
      bytesDone: 5_242_880,
      bytesTotal: 12_000_000,
      earlier: null,
    });
    q.db.close();
    vi.unstubAllEnvs();
  });

  it('says of a retry whose time has come since when it is due, never that it is tried "any moment"', () => {
    const dir = join(work, 'due');
    const q = queueIn(dir);
    const due = { path: '/card/due.mp4', size: 12_000_000 };
    enqueueRegistered(q, 'walk', request, due, { captureId: 'cap-1', uploadId: 'u1', totalParts: 3 });
    const retryAt = Date.now() - 120_000;
    q.moveFile(1, ['pending'], 'pending', { error: 'SlowDown (HTTP 503 on PUT /x)', retryAt, transient: true });

    const lines = captureOutput(() => printStatus(dir, false, 'en-GB')).split('\n');
    expect(lines).toContain(
      `      retry due since ${localTime(retryAt, { locale: 'en-GB' })} (attempt 2): storage is busy — SlowDown (HTTP 503 on PUT /x)`,
    );
    expect(lines.filter((l) => l.startsWith('  ')).join('\n')).not.toMatch(/any moment|Retrying now/);
    q.db.close();
  });

  it('says first that the whole queue is held until a time, as the app set it', () => {
    const dir = join(work, 'held');
    const q = queueIn(dir);
    enqueueOne(q, 'walk', request, { path: '/card/walk.mp4', size: 12_000_000 });
    const at = new Date();
    at.setHours(23, 59, 0, 0); // later today, in local time
    if (at.getTime() <= Date.now() + 1000) at.setTime(Date.now() + 60_000);
    const clock = at.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
    q.meta.setHold('person', at.toISOString());
    // (After 23:58 the time given is past midnight, and the date comes first.) A 24-hour locale:
    // the one time format follows the locale given.
    expect(captureOutput(() => printStatus(dir, false, 'en-GB')).split('\n')[0]).toMatch(
      new RegExp(
        `^Paused until (\\d+ \\w+ )?${clock}: no upload starts before then \\(files paused one by one stay paused after it\\)\\.$`,
      ),
    );
    expect(JSON.parse(captureOutput(() => printStatus(dir, true)))).toMatchObject({
      type: 'status',
      hold: { until: at.toISOString(), by: 'person' },
    });
    // A hold whose time has passed says nothing.
    q.meta.setHold('person', new Date(Date.now() - 1000).toISOString());
    expect(captureOutput(() => printStatus(dir, false)).split('\n')[0]).toMatch(/^Waiting · 0% /);
    q.db.close();
  });

  it('a file whose changed recording was added again reads "replaced", and its capture says by which capture', () => {
    const dir = join(work, 'replaced');
    const q = queueIn(dir);
    const file = {
      path: '/card/a.mp4',
      fileName: 'a.mp4',
      contentType: 'video/mp4',
      size: 12_000_000,
      mtimeMs: 1,
      dev: '1',
      ino: '2',
      fingerprint: 'f1',
    };
    const old = q.enqueueCapture('walk', request, [file]);
    q.markChanged(1);
    const again = q.enqueueCapture('walk', request, [{ ...file, size: 12_000_001, fingerprint: 'f2' }]);
    q.replaceChanged(again, [file]);
    for (const k of Object.keys(process.env).filter((k) => k.startsWith('CAPTURE_'))) vi.stubEnv(k, undefined);
    const lines = captureOutput(() => printStatus(dir, false)).split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'Waiting · 0% · 0 B of 11.4 MiB stored',
      `capture ${old}  queued               walk — replaced by capture ${again}`,
      '  file 1  replaced     0%   11.4 MiB  a.mp4',
      `      Replaced by capture ${again}: the recording changed on disk and was added again as a new capture.`,
    ]);
    const json = JSON.parse(captureOutput(() => printStatus(dir, true))) as {
      captures: { files: { replacedBy: number | null }[] }[];
    };
    expect(json.captures.map((c) => c.files[0]!.replacedBy)).toEqual([again, null]);
    q.db.close();
    vi.unstubAllEnvs();
  });

  it("--json: the document SQLite builds is, byte for byte, the one the queue's own row mappings give", () => {
    const dir = join(work, 'json');
    const q = queueIn(dir);
    const file = (name: string, frameIndex: number, size: number) => ({
      frameIndex,
      fileName: name,
      contentType: 'video/insv',
      size,
    });
    const pair = {
      ...request,
      files: [
        file('VID_00_café ☕\t"x"\u001b\u007f\u009b\u202e\u2028\\n.insv', 1, 12_000_000),
        file('VID_10.insv', 2, 7),
      ],
    };
    const a = q.enqueueCapture('pair «1»', pair, [
      {
        path: '/card/VID_00_café ☕\t"x".insv',
        fileName: 'VID_00_café ☕\t"x"\u001b\u007f\u009b\u202e\u2028\\n.insv',
        contentType: 'video/insv',
        size: 12_000_000,
        mtimeMs: 1_795_425_302_589.75,
        dev: '65024',
        ino: '7',
        ctimeNs: '1795425302589632676',
        fingerprint: 'ab',
      },
      { path: '/card/VID_10.insv', fileName: 'VID_10.insv', contentType: 'video/insv', size: 7, mtimeMs: 2 },
    ]);
    q.saveRegistration(a, 'cap-a', [
      {
        frameIndex: 1,
        uploadId: 'u1',
        fileName: 'VID_00_café ☕\t"x"\u001b\u007f\u009b\u202e\u2028\\n.insv',
        size: 12_000_000,
        partSize: 5_242_880,
        totalParts: 3,
        status: 'initiated',
      },
      {
        frameIndex: 2,
        uploadId: 'u2',
        fileName: 'VID_10.insv',
        size: 7,
        partSize: 5_242_880,
        totalParts: 1,
        status: 'initiated',
      },
    ]);
    q.recordParts([
      { fileId: 1, partNumber: 1, etag: '"abc"' },
      { fileId: 1, partNumber: 3, etag: '"def"' },
    ]);
    setFileState(q, 2, 'completed');
    q.moveFile(1, ['pending'], 'pending', {
      error: 'InternalError (HTTP 500 on PUT /x)',
      retryAt: Date.now() + 60_000,
      transient: true,
    });
    q.enqueueCapture('waiting', { ...request, files: [file('b.mp4', 1, 99)] }, [
      { path: '/b.mp4', fileName: 'b.mp4', contentType: 'video/mp4', size: 99, mtimeMs: 3 },
    ]);
    q.db.prepare('UPDATE files SET changed = 1 WHERE id = 3').run();

    const expected = {
      type: 'status',
      state: {
        kind: 'waiting',
        headline: 'Waiting',
        detail: null,
        since: null,
        nextTry: expect.any(Number),
        percent: 56,
        filesDone: 1,
        files: 3,
        bytesDone: 7 + 5_242_880 + 1_514_240,
        bytesTotal: 12_000_106,
        earlier: null,
      },
      hold: null,
      captures: q.captures().map((c) => ({
        ...c,
        files: q
          .allFiles()
          .filter((f) => f.captureRow === c.id)
          .map((f) => {
            const stored = q.parts(f.id).filter((p) => p.etag !== null);
            return {
              ...f,
              partsDone: stored.length,
              bytesDone: f.state === 'completed' ? f.size : stored.reduce((n, p) => n + p.size, 0),
            };
          }),
      })),
    };
    expect(expected.captures[0]!.files[0]).toMatchObject({
      partsDone: 2,
      bytesDone: 5_242_880 + 1_514_240,
      transient: true,
    });
    const doc = captureOutput(() => printStatus(dir, true));
    expect(JSON.parse(doc)).toEqual(expected);
    // Key order as well: the document is what the mappings give (main/queue/reader.ts statusJson).
    expect(Object.keys(JSON.parse(doc) as object)).toEqual(['type', 'state', 'hold', 'captures']);
    // Written through the one escaping (shared/printable.ts): the tab in a name as \u0009.
    expect(doc.slice(doc.indexOf('"hold"'))).toBe(
      `${printableJson(expected).slice(printableJson(expected).indexOf('"hold"'))}\n`,
    );
    q.db.close();
  });

  it('names the file when there is no queue', () => {
    expect(() => printStatus(join(work, 'none'), false)).toThrow(/No upload queue at .*none\/queue\.db yet/);
  });

  it('escapes control characters', () => {
    expect(printable('a\nb\tc\u0007')).toBe('a\\nb\\tc\\u0007');
  });
});
