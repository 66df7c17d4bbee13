import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cardPresent, cardRootOf, remapToCard, volumeIdOf } from './card-root.js';

// A file's card is found from its path alone (a pulled card cannot be read).
const work = mkdtempSync(join(tmpdir(), 'card-root-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the card a file is on', () => {
  it('is the folder holding DCIM, in any case; loose files are on no card', () => {
    expect(cardRootOf('/media/ana/X4/DCIM/Camera01/VID_20261124_080000_00_001.insv')).toBe('/media/ana/X4');
    expect(cardRootOf('/run/media/ana/X4/dcim/camera01/a.insv')).toBe('/run/media/ana/X4');
    expect(cardRootOf('/home/ana/Videos/walk.mp4')).toBeNull();
  });

  it('moves a path from one mount to another, and nothing off the card', () => {
    expect(remapToCard('/media/ana/X4/DCIM/Camera01/a.insv', '/media/ana/X4', '/media/ana/X4_1')).toBe(
      '/media/ana/X4_1/DCIM/Camera01/a.insv',
    );
    expect(remapToCard('/media/ana/X40/DCIM/a.insv', '/media/ana/X4', '/media/ana/X4_1')).toBeNull();
  });

  it('is present only while its folder holds DCIM: an empty mount point left by an unmount is not the card', () => {
    const root = join(work, 'X4');
    mkdirSync(root);
    expect(cardPresent(root)).toBe(false);
    mkdirSync(join(root, 'DCIM'));
    expect(cardPresent(root)).toBe(true);
    expect(cardPresent(join(work, 'gone'))).toBe(false);
  });

  it('has the file system UUID of the volume mounted exactly there, where Linux says it', () => {
    const byUuid = join(work, 'by-uuid');
    mkdirSync(byUuid);
    symlinkSync('../sdb1', join(byUuid, '1A2B-3C4D'));
    const mountinfo = join(work, 'mountinfo');
    writeFileSync(
      mountinfo,
      [
        '22 27 0:21 / /proc rw - proc proc rw',
        `36 35 8:17 / /media/ana/X4\\040CARD rw,nosuid - exfat ${join(work, 'sdb1')} rw`,
      ].join('\n'),
    );
    const files = { mountinfo, byUuid };
    if (process.platform !== 'linux') return expect(volumeIdOf('/media/ana/X4 CARD', files)).toBeNull();
    expect(volumeIdOf('/media/ana/X4 CARD', files)).toBe('1A2B-3C4D');
    expect(volumeIdOf('/media/ana', files)).toBeNull(); // not a mount point: the files decide
  });
});
