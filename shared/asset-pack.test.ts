import { deserialize, serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { UnpackedAsset } from './asset-pack.js';
import { packAssets, unpackAssets } from './asset-pack.js';

// A structure's assets (progress-records-interface.md §2 ExternalAsset) in columns across the
// processes, and back: what the window draws must be what the service answered.

const assets: UnpackedAsset[] = [
  {
    _id: 'a1',
    shape: 'Polyline',
    points: [
      { x: 0, y: 0 },
      { x: 3.25, y: -4 },
      { x: 6_000_000.125, y: 1e-9 },
    ],
    doNotTrack: false,
    snapshot: '2026-11-20T10:00:00.000Z',
    stages: [
      { _id: 's1', percentage: 100, date: '2026-11-20T10:00:00.000Z' },
      { _id: 's2', percentage: 40, date: null },
    ],
  },
  // No points, no snapshot, a stage no other asset lists and a shape of its own.
  {
    _id: 'a2',
    shape: 'Polygon',
    points: [],
    doNotTrack: true,
    snapshot: null,
    stages: [{ _id: 's3', percentage: 0, date: null }],
  },
  {
    _id: 'a3',
    shape: 'Point',
    points: [{ x: 7, y: 8 }],
    doNotTrack: false,
    snapshot: '2026-11-20T10:00:00.000Z',
    stages: [],
  },
];

/** `a` with its stages in the order the packing gives them: by the first asset that lists each. */
const byStage = (a: UnpackedAsset) => ({ ...a, stages: [...a.stages].sort((x, y) => x._id.localeCompare(y._id)) });

describe('packAssets and unpackAssets', () => {
  it('give back every field of every asset, through a structured clone as the IPC makes it', () => {
    const packed = deserialize(serialize(packAssets(assets))) as ReturnType<typeof packAssets>;
    expect(packed.xy).toBeInstanceOf(Float64Array);
    expect([...packed.starts]).toEqual([0, 3, 3, 4]);
    expect(packed.snapshots).toEqual(['2026-11-20T10:00:00.000Z']);
    expect(unpackAssets(packed).map(byStage)).toEqual(assets.map(byStage));
  });

  it('keep the first of a stage an asset lists twice, as the view reads it', () => {
    const twice: UnpackedAsset = {
      ...assets[0]!,
      stages: [
        { _id: 's1', percentage: 30, date: null },
        { _id: 's1', percentage: 90, date: '2026-11-21T10:00:00.000Z' },
      ],
    };
    expect(unpackAssets(packAssets([twice]))[0]!.stages).toEqual([{ _id: 's1', percentage: 30, date: null }]);
  });

  it('refuse an answer whose columns do not fit together, saying what does not', () => {
    const packed = packAssets(assets);
    expect(() => unpackAssets({ ...packed, starts: packed.starts.subarray(1) })).toThrow(
      /does not fit together: 3 point starts for 3 assets/,
    );
    expect(() => unpackAssets({ ...packed, ids: packed.ids.slice(1) })).toThrow(/columns are not each 2 assets long/);
    expect(() => unpackAssets({ ...packed, shape: Uint16Array.from([0, 9, 0]) })).toThrow(
      /asset 2 points outside the answer's tables/,
    );
  });

  it('packs a floor of 200,000 points into two arrays of bytes, not 200,000 objects', () => {
    const floor = Array.from({ length: 2000 }, (_, i) => ({
      ...assets[0]!,
      _id: `f${i}`,
      points: Array.from({ length: 100 }, (_, k) => ({ x: i + k, y: k })),
    }));
    const packed = packAssets(floor);
    expect(packed.xy.length).toBe(400_000);
    expect(unpackAssets(packed)[1999]!.points[99]).toEqual({ x: 2098, y: 99 });
  });
});
