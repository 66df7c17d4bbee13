import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { decodePlan, NoPictureError } from './decode-plan.js';

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'decode-plan-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('decodePlan', () => {
  it('plans the Insta360 fixture from its keyframe at 0.50 s to its frame halfway through (0.55 s), the bytes where they are', async () => {
    const path = join(fixtures, 'sample.insv');
    const plan = await decodePlan(path);
    expect(plan).toMatchObject({ codec: 'avc1.4d402a', codedWidth: 736, codedHeight: 368, atUs: 550_000 });
    // The avcC box's body: configurationVersion 1, then the profile of the codec string (0x4d, 0x40, 0x2a).
    expect([...Buffer.from(plan.description!, 'base64').subarray(0, 4)]).toEqual([1, 0x4d, 0x40, 0x2a]);
    // Its keyframe at 0.5005 s (frame 15), then the frames up to 0.55 s, in decode order.
    expect(plan.samples.map((s) => [s.key, s.timestampUs])).toEqual([
      [true, 500_500],
      [false, 533_867],
    ]);
    // Each sample's bytes in the file: an H.264 access unit in length-prefixed NAL units.
    const file = readFileSync(path);
    for (const s of plan.samples) {
      const unit = file.subarray(s.offset, s.offset + s.size);
      expect(unit.readUInt32BE(0) + 4).toBeLessThanOrEqual(s.size);
    }
  });

  it('takes only the keyframe when the frames up to the time are more than the bytes allowed', async () => {
    const plan = await decodePlan(join(fixtures, 'sample.insv'), 1000);
    expect(plan.samples).toHaveLength(1);
    expect(plan.samples[0]!.key).toBe(true);
  });

  it('plans a video whose moov comes after its mdat (the walkthrough fixture: one keyframe, a second in)', async () => {
    const plan = await decodePlan(join(fixtures, 'walkthrough.mp4'));
    expect(plan).toMatchObject({ codec: 'avc1.640028', codedWidth: 1920, codedHeight: 960, atUs: 1_000_000 });
    expect(plan.samples[0]!.key).toBe(true);
    expect(plan.samples.slice(1).every((s) => !s.key)).toBe(true);
    expect(plan.samples.length).toBeGreaterThan(1);
  });

  it('says a file of random bytes, or a recording cut off before its moov, holds no picture', async () => {
    const noise = join(work, 'noise.insv');
    writeFileSync(noise, Buffer.alloc(4096, 0x5a));
    await expect(decodePlan(noise)).rejects.toThrow(NoPictureError);
    const cut = join(work, 'cut.insv');
    writeFileSync(cut, readFileSync(join(fixtures, 'walkthrough.mp4')).subarray(0, 100_000));
    await expect(decodePlan(cut)).rejects.toThrow('No preview: not an MP4 container, or an unfinished recording');
  });
});
