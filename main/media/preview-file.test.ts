import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { previewOf } from './preview-file.js';

const work = mkdtempSync(join(tmpdir(), 'preview-file-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const folder = (name: string, files: string[]) => {
  const dir = join(work, name);
  mkdirSync(dir);
  for (const f of files) writeFileSync(join(dir, f), 'x');
  return dir;
};
/** The name of the preview previewOf finds for `name` in `dir`, or undefined. */
const found = async (dir: string, name: string) => (await previewOf(join(dir, name)))?.slice(dir.length + 1);

describe('previewOf', () => {
  it('finds the LRV of the same time and segment beside either lens, as the X3 and X4 (.lrv) and earlier cameras (.insv) name it', async () => {
    const x4 = folder('x4', [
      'VID_20261124_080000_00_001.insv',
      'VID_20261124_080000_10_001.insv',
      'LRV_20261124_080000_11_001.lrv',
    ]);
    expect(await found(x4, 'VID_20261124_080000_00_001.insv')).toBe('LRV_20261124_080000_11_001.lrv');
    expect(await found(x4, 'VID_20261124_080000_10_001.insv')).toBe('LRV_20261124_080000_11_001.lrv');
    const oneR = folder('one-r', ['VID_20231121_201609_00_007.insv', 'lrv_20231121_201609_11_007.INSV']);
    expect(await found(oneR, 'VID_20231121_201609_00_007.insv')).toBe('lrv_20231121_201609_11_007.INSV');
  });

  it('never takes the preview of another segment or another time, and answers nothing where there is none', async () => {
    const dir = folder('other', [
      'VID_20261124_080000_00_001.insv',
      'LRV_20261124_080000_11_002.lrv',
      'LRV_20261124_080001_11_001.lrv',
      'VID_20261124_090000_00_003.mp4',
    ]);
    expect(await found(dir, 'VID_20261124_080000_00_001.insv')).toBeUndefined();
    expect(await found(dir, 'VID_20261124_090000_00_003.mp4')).toBeUndefined();
    expect(await found(dir, 'walk.mp4')).toBeUndefined();
    expect(await previewOf(join(work, 'gone', 'VID_20261124_080000_00_001.insv'))).toBeUndefined();
  });

  it('prefers lens 11 when the camera left more than one preview of a recording', async () => {
    const dir = folder('two', [
      'VID_20261124_080000_00_001.insv',
      'LRV_20261124_080000_01_001.lrv',
      'LRV_20261124_080000_11_001.lrv',
    ]);
    expect(await found(dir, 'VID_20261124_080000_00_001.insv')).toBe('LRV_20261124_080000_11_001.lrv');
  });
});
