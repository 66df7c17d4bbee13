import { describe, expect, it } from 'vitest';
import {
  categorySizing,
  drawnLength,
  planUnitMetres,
  polygonArea,
  quantityIn,
  shapeKind,
  stageWork,
  workPhrase,
} from './asset-measure.js';

// An asset's quantity by its shape and in each stage's unit (progress-records-interface.md §2).
/** A drawn shape of kind `shape` through the plan points `[x, y]` (metres). */
const drawn = (shape: string, ...xy: [number, number][]) => ({ shape, points: xy.map(([x, y]) => ({ x, y })) });
const wall = drawn('Polyline', [0, 0], [30, 0], [30, 40]); // 70 m run
const slab = drawn('Polygon', [0, 0], [10, 0], [10, 6], [0, 6]); // 60 m², 32 m round
const damper = { shape: 'Point', points: [{ x: 4, y: 4 }] };
const metric = { uom: 'm', height: 3 };

describe('shapeKind', () => {
  it('reads the interface’s "Polyline" and the shapes it leaves open, whatever their case', () => {
    expect(['Polyline', 'polygon', 'POINT', 'LineString', 'Circle', undefined].map(shapeKind)).toEqual([
      'polyline',
      'polygon',
      'point',
      'polyline',
      'other',
      'polyline',
    ]);
  });
});

describe('quantityIn', () => {
  it('measures a polyline’s run in a length unit, converting from the plan’s metres', () => {
    expect(quantityIn(wall, { uom: 'm', measurement: 'length' }, metric)).toBe(70);
    expect(quantityIn(wall, { uom: 'lf' }, metric)).toBeCloseTo(70 / 0.3048, 9);
    expect(quantityIn(wall, { uom: 'mm' }, metric)).toBeCloseTo(70_000, 6);
  });
  it('measures a traced wall’s area as run × the category’s height, and a polygon by its own area', () => {
    expect(quantityIn(wall, { uom: 'm2', measurement: 'area' }, metric)).toBe(210);
    expect(quantityIn(slab, { uom: 'm2' }, metric)).toBe(60);
    expect(quantityIn(slab, { uom: 'ft2' }, metric)).toBeCloseTo(60 / 0.09290304, 9);
    expect(polygonArea([...slab.points, slab.points[0]!])).toBe(60);
  });
  it('gives a polygon’s perimeter as its length and its area × height as its volume', () => {
    expect(drawnLength(slab)).toBe(32);
    expect(quantityIn(slab, { uom: 'm3', measurement: 'volume' }, { uom: 'm2', height: 0.25 })).toBe(15);
  });
  it('counts any shape as one in a count unit, and measures nothing else of a point or an unknown shape', () => {
    expect(quantityIn(damper, { uom: 'ea', measurement: 'count' }, { uom: 'ea', height: null })).toBe(1);
    expect(quantityIn({ shape: 'Circle', points: wall.points }, { uom: 'ea' }, metric)).toBe(1);
    expect(quantityIn(damper, { uom: 'm' }, metric)).toBeUndefined();
    expect(quantityIn({ shape: 'Circle', points: wall.points }, { uom: 'm' }, metric)).toBeUndefined();
  });
  it('derives nothing for a unit it does not know, a measurement that contradicts the unit, or plans of a count category', () => {
    expect(quantityIn(wall, { uom: 't' }, metric)).toBeUndefined();
    expect(quantityIn(wall, { uom: 'm', measurement: 'area' }, metric)).toBeUndefined();
    expect(quantityIn(wall, { uom: 'm' }, { uom: 'ea', height: null })).toBeUndefined();
    expect(quantityIn(wall, { uom: 'm2' }, { uom: 'm', height: null })).toBeUndefined();
    expect(planUnitMetres('ft2')).toBeCloseTo(0.3048, 12);
  });
});

describe('stageWork', () => {
  it('sums each tracked asset’s quantity × its percentage, in the stage’s unit, leaving do-not-track out', () => {
    const st = { _id: 's1', uom: 'm' };
    const assets = [
      { ...wall, stages: [{ _id: 's1', percentage: 50 }] },
      {
        ...wall,
        points: [
          { x: 0, y: 0 },
          { x: 0, y: 30 },
        ],
        stages: [],
      },
      { ...wall, doNotTrack: true, stages: [{ _id: 's1', percentage: 100 }] },
      { ...damper, stages: [{ _id: 's1', percentage: 100 }] },
    ];
    const w = stageWork(st, assets, metric);
    expect(w).toEqual({ done: 35, total: 100, measured: 2 });
    expect(workPhrase(w, 'm', 'en-GB')).toBe('35 of 100 m');
    expect(workPhrase({ done: 120.04, total: 300.55 }, 'm2', 'en-GB')).toBe('120 of 300.6 m2');
  });
});

describe('categorySizing', () => {
  it('sizes a category by its unit and its shapes, and falls back to drawn length in plan units', () => {
    const walls = categorySizing({ uom: 'm2', height: 3 }, [wall]);
    expect([walls.dimension, walls.unit, walls.note, walls.size(wall)]).toEqual([
      'area',
      'm2',
      'area in m2: drawn length × height 3',
      210,
    ]);
    const slabs = categorySizing({ uom: 'm2', height: 0.25 }, [slab]);
    expect([slabs.note, slabs.size(slab)]).toEqual(['area in m2: the drawn outlines', 60]);
    expect(categorySizing({ uom: 'ea', height: null }, [damper]).note).toBe('counted in ea');
    const unknown = categorySizing({ uom: 't', height: null }, [wall]);
    expect([unknown.dimension, unknown.unit, unknown.size(wall)]).toEqual([null, 'plan units', 70]);
  });
});
