import { describe, expect, it } from 'vitest';
import { MiB, useServiceKit } from '../testing/kit.js';

// The interface's response tables (capture-upload-interface.md §2) have no "required" column:
// every field this client does not use is dropped from each answer in turn, and the upload must
// still complete with the bytes in storage (docs/decisions/0003-tolerant-reader.md).

const kit = useServiceKit('tolerant-reader');

const unused: Record<'add-capture' | 'presign-missing' | 'complete-batch', string[]> = {
  'add-capture': [
    'success',
    'result.*.capture.project',
    'result.*.capture.structure',
    'result.*.capture.uploadStatus',
    'result.*.capture.expectedFiles',
    'result.*.capture.completedFiles',
    'result.*.uploadManifest.*.fileName',
    'result.*.uploadManifest.*.status',
    // Used when given, with a fallback when not: frameIndex (fileName), size (the file's), totalParts (⌈size ÷ partSize⌉).
    'result.*.uploadManifest.*.frameIndex',
    'result.*.uploadManifest.*.size',
    'result.*.uploadManifest.*.totalParts',
  ],
  'presign-missing': ['ok', 'uploadId', 'partSize', 'totalParts', 'parts.*.expiresIn'],
  'complete-batch': [
    'upload.uploadId',
    'upload.fileName',
    'upload.size',
    'upload.totalParts',
    'upload.uploadedPartsCount',
    'upload.percentage',
    'upload.missingParts',
    // With ok: true and no status, the answer to the report of the last part is the finalization.
    'upload.status',
  ],
};

let n = 0;
/** Uploads one 6 MiB file (two parts) with `paths` dropped from every `operation` answer; returns the log lines. */
async function uploadWithout(operation: string, paths: string[]): Promise<string[]> {
  const name = `t${++n}`;
  await kit.fault({ target: 'gateway', operation, times: 0, action: { type: 'omitFields', paths } });
  const lines: string[] = [];
  const u = kit.uploader(name, { log: { info: (m) => lines.push(m), warn: (m) => lines.push(m) } });
  const file = kit.file(`${name}.mp4`, 6 * MiB);
  const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
  expect(queued).toHaveLength(1);
  const summary = await u.engine.drain();
  const row = u.queue.filesOf(queued[0]!)[0]!;
  expect(u.queue.capture(queued[0]!)!.state).not.toBe('registration_unknown');
  expect(summary.failed).toEqual([]);
  expect(summary.completed.map((f) => f.id)).toEqual([row.id]);
  expect((await kit.stored(u, row.id)).sha256).toBe(file.sha256);
  expect((await kit.fired())[0]).toBeGreaterThan(0);
  return lines;
}

describe('a tolerant reader: each unused field dropped from each answer', () => {
  for (const [operation, paths] of Object.entries(unused)) {
    for (const path of paths) {
      it(`${operation} without ${path}: the upload completes, the object's hash is the file's`, async () => {
        await uploadWithout(operation, [path]);
      });
    }
  }

  it('all unused fields dropped at once from each answer: still completes, and the log names what was absent once', async () => {
    await kit.fault({
      target: 'gateway',
      operation: 'presign-missing',
      times: 0,
      action: { type: 'omitFields', paths: unused['presign-missing'] },
    });
    await kit.fault({
      target: 'gateway',
      operation: 'complete-batch',
      times: 0,
      action: { type: 'omitFields', paths: unused['complete-batch'] },
    });
    const lines = await uploadWithout(
      'add-capture',
      unused['add-capture'].filter((p) => !p.endsWith('.frameIndex')),
    );
    const absent = lines.filter((l) => /answer lacks/.test(l));
    expect(absent.filter((l) => l.includes('add-capture'))).toHaveLength(1);
    expect(absent.join('\n')).toContain('result.*.capture.project');
    expect(absent.join('\n')).toContain('parts.*.expiresIn');
    expect(absent.join('\n')).toContain('upload.percentage');
    // No secret in them: no URL, token or key.
    expect(absent.join('\n')).not.toMatch(/https?:|X-Amz|Bearer|eyJ/);
  });

  it('says each absent field once, however many answers lack it', async () => {
    await kit.fault({
      target: 'gateway',
      operation: 'complete-batch',
      times: 0,
      action: { type: 'omitFields', paths: ['upload.percentage'] },
    });
    const lines: string[] = [];
    const u = kit.uploader('once', { log: { info: (m) => lines.push(m), warn: (m) => lines.push(m) } });
    const a = kit.file('once-a.mp4', 1024);
    const b = kit.file('once-b.mp4', 2048);
    await u.add([a.path], { structure: kit.structure(), type: 'interior' });
    await u.add([b.path], { structure: kit.structure(), type: 'interior' });
    expect((await u.engine.drain()).completed).toHaveLength(2);
    expect((await kit.fired())[0]).toBe(2);
    expect(lines.filter((l) => l.includes('upload.percentage'))).toHaveLength(1);
  });
});
