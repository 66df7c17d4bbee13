import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/kit.js';
import type { EngineEvent } from '../engine/engine.js';
import { KEEP_DAYS, SupportLog, isoWithOffset, logFileName } from './log-file.js';

const work = tempDir('support-log');
afterAll(() => work.remove());

// Secrets of the kinds the app holds: the account password, the project's API key, a sign-in
// token (a JWT sent as a bearer token) and a presigned part URL (its signature and credential).
const PASSWORD = 'hunter2-Sup3r-s3cret!';
const API_KEY = 'ak_live_7f3c9e21b5d84a60';
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvcGVyYXRvciIsImV4cCI6MTc5NTY2NDAwMH0.Zm9vYmFyc2lnbmF0dXJlYmFzZTY0';
const SIGNATURE = 'f0e1d2c3b4a5968778695a4b3c2d1e0ff0e1d2c3b4a5968778695a4b3c2d1e0f';
const CREDENTIAL = 'AKIAEXAMPLE123%2F20261127%2Fus-east-1%2Fs3%2Faws4_request';
const PRESIGNED = `https://storage.example.com:9443/captures/cap-1/walk.mp4?partNumber=3&uploadId=u-77&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${CREDENTIAL}&X-Amz-Date=20261127T101500Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=${SIGNATURE}`;

const fixed = (iso: string) => () => Date.parse(iso);
const read = (dir: string, day: string) => readFileSync(`${dir}/${logFileName(day)}`, 'utf8');

describe('the support log', () => {
  it('writes messages and engine events as JSON lines with no password, API key, token or presigned URL in the file', () => {
    const dir = `${work.dir}/secrets`;
    const log = new SupportLog({
      dir,
      source: 'cli',
      secrets: () => [PASSWORD, API_KEY],
      now: fixed('2026-11-27T09:15:00.250Z'),
      offsetMinutes: () => 60,
    });
    const logger = log.tee();
    logger.info(`Signing in as op@example.com with password ${PASSWORD}`);
    logger.warn(`Sign-in answered 401 for Authorization: Bearer ${TOKEN}`);
    logger.warn(`retrying with api_key=${API_KEY}, x-api-key: ${API_KEY}`);
    logger.info(`{"email":"op@example.com","password":"${PASSWORD}","apiKey":"${API_KEY}"}`);
    const events: EngineEvent[] = [
      { type: 'warning', message: `PUT ${PRESIGNED} was refused` },
      {
        type: 'activity',
        entry: {
          id: 1,
          at: '2026-11-27T09:15:00.000Z',
          captureRow: 1,
          fileId: 2,
          subject: 'walk.mp4',
          kind: 'retry-scheduled',
          message: `storage said AccessDenied for ${PRESIGNED}; token ${TOKEN}`,
        },
      },
      { type: 'blocked', message: `The service refuses the credentials (key ${API_KEY})` },
      { type: 'progress', files: [], overall: {} as never },
    ];
    for (const e of events) log.event(e);

    const text = read(dir, '2026-11-27');
    for (const secret of [
      PASSWORD,
      API_KEY,
      TOKEN,
      SIGNATURE,
      CREDENTIAL,
      'X-Amz-Signature',
      'X-Amz-Credential',
      'uploadId=u-77',
    ])
      expect(text).not.toContain(secret);
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // One line per message and per event but progress; each with its time, ISO 8601 with offset.
    expect(lines).toHaveLength(7);
    for (const l of lines) expect(l.at).toBe('2026-11-27T10:15:00.250+01:00');
    expect(lines.map((l) => l.kind)).toEqual(['log', 'log', 'log', 'log', 'warning', 'activity', 'blocked']);
    // What support needs is still there: who, which host and path, what kind of failure.
    expect(lines[0]!.message).toBe('Signing in as op@example.com with password [hidden]');
    expect(lines[4]!.message).toBe('PUT https://storage.example.com:9443/captures/cap-1/walk.mp4?[hidden] was refused');
    expect(lines[5]).toMatchObject({ level: 'info', activity: 'retry-scheduled', fileId: 2, captureRow: 1 });
    expect(String(lines[1]!.message)).toContain('Bearer [hidden]');
  });

  it('starts a new file when the day changes, and keeps the newest 14 days that have a file: older files go at start and at rotation', () => {
    const dir = `${work.dir}/rotation`;
    let now = Date.parse('2026-11-27T22:59:00Z');
    // Files of 16 earlier days (1 to 16 November), by the day in their name, and a file of someone else's.
    const mk = (day: string) => writeFileSync(`${dir}/${logFileName(day)}`, '{}\n');
    const november = (d: number) => `2026-11-${String(d).padStart(2, '0')}`;
    new SupportLog({ dir, source: 'cli', now: () => now, offsetMinutes: () => 60 });
    for (let d = 1; d <= 16; d++) mk(november(d));
    writeFileSync(`${dir}/notes.txt`, 'not ours');

    const log = new SupportLog({ dir, source: 'service', now: () => now, offsetMinutes: () => 60 });
    // At start (local day 27 November): the newest 14 days that have a file are 3 to 16 November.
    expect(readdirSync(dir).sort()).toEqual([
      ...Array.from({ length: 14 }, (_, i) => logFileName(november(i + 3))),
      'notes.txt',
    ]);
    expect(KEEP_DAYS).toBe(14);

    log.message('info', 'before midnight');
    now = Date.parse('2026-11-27T23:00:30Z'); // 00:00:30 on 28 November at +01:00
    log.message('info', 'after midnight');
    expect(JSON.parse(read(dir, '2026-11-27').trim()) as unknown).toMatchObject({
      at: '2026-11-27T23:59:00.000+01:00',
      source: 'service',
      message: 'before midnight',
    });
    expect(JSON.parse(read(dir, '2026-11-28').trim()) as unknown).toMatchObject({
      at: '2026-11-28T00:00:30.000+01:00',
      message: 'after midnight',
    });
    // At rotation to 28 November, 27 November's file made 15: 3 November went, 4 November stays.
    expect(existsSync(`${dir}/${logFileName(november(3))}`)).toBe(false);
    expect(existsSync(`${dir}/${logFileName(november(4))}`)).toBe(true);
    expect(existsSync(`${dir}/notes.txt`)).toBe(true);
  });

  it('keeps its files whatever the clock says: at 2099 a real day goes for each day written then, at 1970 none, and today’s file never', () => {
    const dir = `${work.dir}/clock`;
    let now = Date.parse('2026-11-27T12:00:00Z');
    const log = new SupportLog({ dir, source: 'cli', now: () => now, offsetMinutes: () => 0 });
    const real = Array.from({ length: 14 }, (_, i) => `2026-11-${String(i + 14).padStart(2, '0')}`);
    for (const day of real) writeFileSync(`${dir}/${logFileName(day)}`, '{}\n');
    now = Date.parse('2099-01-01T12:00:00Z');
    log.message('warn', 'a clock far ahead');
    expect(readdirSync(dir).sort()).toEqual([...real, '2099-01-01'].map(logFileName));
    now = Date.parse('2099-01-02T12:00:00Z');
    log.message('warn', 'the next day');
    expect(readdirSync(dir).sort()).toEqual([...real.slice(1), '2099-01-01', '2099-01-02'].map(logFileName));
    now = Date.parse('1970-01-01T12:00:00Z');
    log.message('warn', 'a clock far behind');
    // Today (1970) is the oldest day there is, and its file stays beside the 14 newest.
    expect(readdirSync(dir).sort()).toEqual(
      ['1970-01-01', ...real.slice(2), '2099-01-01', '2099-01-02'].map(logFileName),
    );
    now = Date.parse('1970-01-01T13:00:00Z');
    log.message('warn', 'again');
    expect(read(dir, '1970-01-01').trim().split('\n')).toHaveLength(2);
  });

  it('says times in ISO 8601 with the zone’s offset, west of UTC too', () => {
    expect(isoWithOffset(Date.parse('2026-11-27T03:04:05.006Z'), -300)).toBe('2026-11-26T22:04:05.006-05:00');
    expect(isoWithOffset(Date.parse('2026-11-27T03:04:05.006Z'), 330)).toBe('2026-11-27T08:34:05.006+05:30');
    expect(isoWithOffset(Date.parse('2026-11-27T03:04:05.006Z'), 0)).toBe('2026-11-27T03:04:05.006+00:00');
  });
});
