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

  it('starts a new file when the day changes, and keeps 14 days: older files go at start and at rotation', () => {
    const dir = `${work.dir}/rotation`;
    let now = Date.parse('2026-11-27T22:59:00Z');
    // Files of earlier days, by the day in their name, and a file of someone else's.
    const mk = (day: string) => writeFileSync(`${dir}/${logFileName(day)}`, '{}\n');
    new SupportLog({ dir, source: 'cli', now: () => now, offsetMinutes: () => 60 });
    for (const day of ['2026-11-01', '2026-11-13', '2026-11-14', '2026-11-15', '2026-11-26']) mk(day);
    writeFileSync(`${dir}/notes.txt`, 'not ours');

    const log = new SupportLog({ dir, source: 'service', now: () => now, offsetMinutes: () => 60 });
    // At start (local day 27 November): the 14 days kept are 14 to 27 November.
    expect(readdirSync(dir).sort()).toEqual([
      logFileName('2026-11-14'),
      logFileName('2026-11-15'),
      logFileName('2026-11-26'),
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
    // At rotation to 28 November, 14 November fell out of the 14 days; 15 November stays.
    expect(existsSync(`${dir}/${logFileName('2026-11-14')}`)).toBe(false);
    expect(existsSync(`${dir}/${logFileName('2026-11-15')}`)).toBe(true);
    expect(existsSync(`${dir}/notes.txt`)).toBe(true);
  });

  it('says times in ISO 8601 with the zone’s offset, west of UTC too', () => {
    expect(isoWithOffset(Date.parse('2026-11-27T03:04:05.006Z'), -300)).toBe('2026-11-26T22:04:05.006-05:00');
    expect(isoWithOffset(Date.parse('2026-11-27T03:04:05.006Z'), 330)).toBe('2026-11-27T08:34:05.006+05:30');
    expect(isoWithOffset(Date.parse('2026-11-27T03:04:05.006Z'), 0)).toBe('2026-11-27T03:04:05.006+00:00');
  });
});
