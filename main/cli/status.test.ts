import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { CaptureRequest } from '../api/gateway.js';
import { openQueueDatabase } from '../queue/db.js';
import { UploadQueue } from '../queue/queue.js';
import { printStatus, printable } from './status.js';

const work = mkdtempSync(join(tmpdir(), 'status-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const request: CaptureRequest = {
  project: 'p1',
  structure: 's1',
  captureDateTime: '2026-11-20T10:00:00.000Z',
  type: 'interior',
  mode: '360 Video',
  sourceType: 'bot',
  files: [{ frameIndex: 1, fileName: 'evil\nname.mp4', contentType: 'video/mp4', size: 12_000_000 }],
};

function captureOutput(fn: () => void): string {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((c) => (chunks.push(String(c)), true));
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return chunks.join('');
}

describe('capture-uploader status', () => {
  it('reads the queue while its writer holds it open, with no credentials, one line per record', () => {
    const dir = join(work, 'q');
    mkdirSync(dir);
    const { db } = openQueueDatabase(join(dir, 'queue.db'));
    const q = new UploadQueue(db);
    const id = q.enqueueCapture('walk', request, [{ path: '/card/evil\nname.mp4', fileName: 'evil\nname.mp4', contentType: 'video/mp4', size: 12_000_000, mtimeMs: 1 }]);
    q.saveRegistration(id, 'cap-1', [{ frameIndex: 1, uploadId: 'u1', fileName: 'evil\nname.mp4', size: 12_000_000, partSize: 5_242_880, totalParts: 3, status: 'initiated' }]);
    q.recordParts([{ fileId: 1, partNumber: 1, etag: '"abc"' }]);
    const retryAt = Date.now() + 60_000;
    q.moveFile(1, ['pending'], 'pending', { error: 'InternalError (HTTP 500 on PUT /x)', retryAt, transient: true });
    for (const k of Object.keys(process.env).filter((k) => k.startsWith('CAPTURE_'))) vi.stubEnv(k, undefined);

    const text = captureOutput(() => printStatus(dir, false));
    expect(text.split('\n').filter(Boolean)).toEqual([
      'capture 1  registered           walk  (id cap-1)',
      '  file 1  pending     43%   11.4 MiB  evil\\nname.mp4',
      expect.stringMatching(/^ {6}tried again at \d\d:\d\d:\d\d \(attempt 2\): InternalError \(HTTP 500 on PUT \/x\)$/),
    ]);
    const json = JSON.parse(captureOutput(() => printStatus(dir, true))) as { captures: { files: { partsDone: number; bytesDone: number; nextAttemptAt: number }[] }[] };
    expect(json.captures[0]!.files[0]).toMatchObject({ partsDone: 1, bytesDone: 5_242_880, nextAttemptAt: retryAt });
    db.close();
    vi.unstubAllEnvs();
  });

  it('names the file when there is no queue', () => {
    expect(() => printStatus(join(work, 'none'), false)).toThrow(/No upload queue at .*none\/queue\.db yet/);
  });

  it('escapes control characters', () => {
    expect(printable('a\nb\tc\u0007')).toBe('a\\nb\\tc\\u0007');
  });
});
