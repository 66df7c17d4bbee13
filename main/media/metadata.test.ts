import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readMediaMetadata } from './metadata.js';

// The reference is what ExifTool 12.57 reads from the fixtures (../shared/fixtures/README.md).
const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'metadata-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('readMediaMetadata agrees with ExifTool', () => {
  it('sample.insv: container and Insta360 trailer', async () => {
    expect(await readMediaMetadata(join(fixtures, 'sample.insv'))).toEqual({
      createdAt: '2023-11-21T20:16:09.000Z', // CreateDate 2023:11:21 20:16:09
      durationSeconds: 1.1, // Duration 1.10 s
      frameRate: 29.97, // VideoFrameRate 29.97
      width: 736, // ImageSize 736x368
      height: 368,
      camera: { model: 'Insta360 OneR', serialNumber: 'IAEAN00000XXXX', firmware: 'v2.0.0_build11' },
    });
  });

  it('walkthrough.mp4: container only, no trailer', async () => {
    const m = await readMediaMetadata(join(fixtures, 'walkthrough.mp4'));
    expect(m).toMatchObject({ createdAt: '2026-03-14T09:26:53.000Z', frameRate: 30, width: 1920, height: 960 });
    expect(m.camera).toBeUndefined();
  });

  it('leaves the file exactly as it was', async () => {
    const copy = join(work, 'copy.insv');
    copyFileSync(join(fixtures, 'sample.insv'), copy);
    const before = readFileSync(copy);
    await readMediaMetadata(copy);
    expect(readFileSync(copy).equals(before)).toBe(true);
  });

  it('refuses a file that is not an MP4 container, saying so', async () => {
    const junk = join(work, 'junk.mp4');
    writeFileSync(junk, Buffer.alloc(4096, 0xff));
    await expect(readMediaMetadata(junk)).rejects.toThrow(/No moov box/);
  });
});
