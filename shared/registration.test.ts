import { describe, expect, it } from 'vitest';
import type { Placement } from './registration.js';
import {
  describeRegistration,
  describeSkipped,
  groupIntoWalks,
  isRecordingName,
  mostUsedPlacement,
  placementName,
} from './registration.js';

const min = 60_000;
const names: Record<string, string> = { a: 'Tower A', b: 'Tower B', l1: 'Level 1', l2: 'Level 2' };
const nameOf = (p: Placement) => placementName(names[p.structure]!, p.design && names[p.design]);
const at = (structure: string, design: string | undefined, n: number, type: Placement['type'] = 'interior') =>
  Array.from({ length: n }, () => ({ structure, design, type }));

describe('groupIntoWalks', () => {
  it('cuts at gaps over 30 minutes and sorts each walk by recording time', () => {
    const times = [90, 0, 29, 58, 200, 230, 261].map((m) => m * min);
    const walks = groupIntoWalks(times, (t) => t);
    expect(walks.map((w) => w.items.map((t) => t / min))).toEqual([[0, 29, 58], [90], [200, 230], [261]]);
    expect(walks.map((w) => [w.number, w.start / min, w.end / min])).toEqual([
      [1, 0, 58],
      [2, 90, 90],
      [3, 200, 230],
      [4, 261, 261],
    ]);
  });

  it('keeps exactly 30 minutes in one walk, and puts unknown times in a last walk of their own', () => {
    const walks = groupIntoWalks([0, 30 * min, NaN, 31 * min + 60 * min], (t) => t);
    expect(walks.map((w) => w.items.length)).toEqual([2, 1, 1]);
    expect(Number.isNaN(walks[2]!.start)).toBe(true);
  });
});

describe('describeRegistration', () => {
  it('names each place with its count, largest first, "captures" said once', () => {
    const text = describeRegistration([...at('b', 'l1', 40), ...at('a', 'l2', 60)], nameOf);
    expect(text).toBe('60 captures in Tower A · Level 2 (interior), 40 in Tower B · Level 1 (interior)');
  });

  it('tells the type apart, and a structure without design by its name alone', () => {
    expect(
      describeRegistration([...at('a', 'l2', 1, 'exterior'), ...at('a', 'l2', 1), ...at('b', undefined, 1)], nameOf),
    ).toBe('1 capture in Tower A · Level 2 (exterior), 1 in Tower A · Level 2 (interior), 1 in Tower B (interior)');
    expect(describeRegistration([], nameOf)).toBe('no captures');
  });
});

describe('mostUsedPlacement', () => {
  it('is the placement most captures went to; the later one of equals', () => {
    expect(mostUsedPlacement([...at('a', 'l2', 3), ...at('b', 'l1', 2)])).toEqual({
      structure: 'a',
      design: 'l2',
      type: 'interior',
    });
    expect(mostUsedPlacement([...at('a', 'l2', 2), ...at('b', 'l1', 2)])).toEqual({
      structure: 'b',
      design: 'l1',
      type: 'interior',
    });
    expect(mostUsedPlacement([])).toBeUndefined();
  });
});

describe('describeSkipped', () => {
  it('sums previews and other files in one line', () => {
    const previews = Array.from(
      { length: 100 },
      (_, i) => `LRV_20261122_0800${String(i).padStart(2, '0')}_11_001.insv`,
    );
    expect(describeSkipped([...previews, 'notes.txt', 'clip.mov'])).toBe(
      'Not uploaded: 100 previews (LRV) and 2 other files',
    );
    expect(describeSkipped(['LRV_x.insv'])).toBe('Not uploaded: 1 preview (LRV)');
    expect(describeSkipped(['clip.mov'])).toBe('Not uploaded: 1 file');
    expect(describeSkipped([])).toBe('');
    expect(describeSkipped(['LRV_a.insv', 'VID_a_11_001.thm', 'VID_b_11_002.THM', 'version.txt'])).toBe(
      'Not uploaded: 1 preview (LRV) and 2 thumbnails (THM) and 1 other file',
    );
  });

  it('tells recordings (shown in the table) from previews and other files', () => {
    expect(
      ['VID_20261122_080000_10_001.insv', 'a.MP4', 'LRV_20261122_080000_11_001.insv', 'notes.csv'].map(isRecordingName),
    ).toEqual([true, true, false, false]);
  });
});
