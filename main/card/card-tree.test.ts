import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inspectPaths, prepareCaptures } from '../intake/intake.js';
import { writeFakeCard } from './fake-card.js';

// Whatever part of a card is dropped, every recording comes out of it.
const work = mkdtempSync(join(tmpdir(), 'card-tree-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const choices = { project: 'p1', structure: 's1', type: 'interior' as const };
const names = (captures: { files: { path: string }[] }[]) => captures.flatMap((c) => c.files.map((f) => f.path)).sort();

describe('a card dropped at any level', () => {
  const card = writeFakeCard(join(work, 'card-a'), { recordings: 3 });

  it.each([
    ['the card root', card.root],
    ['DCIM', join(card.root, 'DCIM')],
    ['the camera folder', join(card.root, 'DCIM', 'Camera01')],
  ])('%s gives every recording as dual-lens captures, and nothing else', async (_what, dropped) => {
    const { captures, refused } = await prepareCaptures([dropped], choices);
    expect(captures).toHaveLength(3);
    expect(captures.every((c) => c.files.length === 2)).toBe(true);
    expect(names(captures)).toEqual([...card.recordings].sort());
    // Previews, thumbnails and MISC are recognised as such, each with its reason, never uploaded.
    const reasons = new Map(refused.map((r) => [r.path.split('/').pop(), r.reason]));
    expect(refused.map((r) => r.path).sort()).toEqual(card.others.filter((p) => p.startsWith(dropped)).sort());
    expect(reasons.get(card.others[0]!.split('/').pop())).toMatch(/^Low-resolution preview \(LRV_\)/);
    expect(reasons.get(card.others[1]!.split('/').pop())).toMatch(/^Thumbnail \(\.thm\) written by the camera/);
  });

  it('a folder of two cards gives the recordings of both', async () => {
    const both = join(work, 'two-cards');
    const a = writeFakeCard(join(both, 'card-1'), { recordings: 2 });
    const b = writeFakeCard(join(both, 'card-2'), {
      recordings: 4,
      start: new Date(2026, 10, 25, 9, 0, 0),
      firstSegment: 10,
    });
    const { captures } = await prepareCaptures([both], choices);
    expect(captures).toHaveLength(6);
    expect(names(captures)).toEqual([...a.recordings, ...b.recordings].sort());
  });

  it('hidden and system folders are not entered; macOS ._ companions are named, not uploaded', async () => {
    const root = join(work, 'card-mac');
    const c = writeFakeCard(root, { recordings: 1 });
    mkdirSync(join(root, '.Trashes'));
    writeFileSync(join(root, '.Trashes', 'VID_20261124_070000_00_009.insv'), 'deleted');
    mkdirSync(join(root, 'System Volume Information'));
    writeFileSync(join(root, 'System Volume Information', 'IndexerVolumeGuid'), 'x');
    const apple = join(root, 'DCIM', 'Camera01', `._${c.recordings[0]!.split('/').pop()}`);
    writeFileSync(apple, 'resource fork');
    const { groups, refused } = await inspectPaths([root]);
    expect(groups.flatMap((g) => g.files.map((f) => f.path)).sort()).toEqual([...c.recordings].sort());
    expect(refused.find((r) => r.path === apple)?.reason).toMatch(/macOS leaves on cards/);
    expect(refused.some((r) => r.path.includes('.Trashes') || r.path.includes('System Volume'))).toBe(false);
  });

  it('a folder that holds no recording says so, naming the folder', async () => {
    const empty = join(work, 'not-a-card');
    mkdirSync(join(empty, 'DCIM', '100MEDIA'), { recursive: true });
    writeFileSync(join(empty, 'DCIM', '100MEDIA', 'IMG_0001.JPG'), 'jpeg');
    const { captures, refused } = await prepareCaptures([empty], choices);
    expect(captures).toEqual([]);
    expect(refused).toContainEqual({
      path: empty,
      reason: `No recordings found in ${empty} (looked for .insv, .mp4, .csv)`,
    });
  });

  it('a folder reached twice through a link that loops back is walked once', async () => {
    const root = join(work, 'card-loop');
    const c = writeFakeCard(root, { recordings: 1 });
    const { symlinkSync } = await import('node:fs');
    symlinkSync(root, join(root, 'DCIM', 'Camera01', 'back-to-root'));
    const { captures } = await prepareCaptures([root], choices);
    expect(names(captures)).toEqual([...c.recordings].sort());
  });
});
