import { describe, expect, it } from 'vitest';
import { categoryMeasure, polylineLength, progressFraction, reachedStage, stageTotals } from './asset-stages.js';

const stages = [
  { _id: 'b', name: 'Boarded', sequence: 2, color: '#0a0' },
  { _id: 'f', name: 'Framed', sequence: 1, color: '#aa0' },
];

describe('asset legend', () => {
  it('measures polylines and finds the latest stage with progress', () => {
    expect(
      polylineLength([
        { x: 0, y: 0 },
        { x: 3, y: 4 },
        { x: 3, y: 10 },
      ]),
    ).toBe(11);
    expect(
      reachedStage(stages, {
        points: [],
        stages: [
          { _id: 'f', percentage: 100 },
          { _id: 'b', percentage: 20 },
        ],
      })?.name,
    ).toBe('Boarded');
    expect(reachedStage(stages, { points: [], stages: [{ _id: 'f', percentage: 0 }] })).toBeNull();
  });

  it('counts assets per stage in sequence, with their share of the length, leaving doNotTrack out', () => {
    const line = (len: number) => [
      { x: 0, y: 0 },
      { x: len, y: 0 },
    ];
    const totals = stageTotals(stages, [
      { points: line(10), stages: [{ _id: 'f', percentage: 100 }] },
      {
        points: line(30),
        stages: [
          { _id: 'f', percentage: 100 },
          { _id: 'b', percentage: 50 },
        ],
      },
      { points: line(60), stages: [] },
      { points: line(1000), doNotTrack: true, stages: [{ _id: 'b', percentage: 100 }] },
    ]);
    expect(totals.map((t) => [t.stage?.name ?? 'not started', t.assets, t.length, t.share])).toEqual([
      ['Framed', 1, 10, 0.1],
      ['Boarded', 1, 30, 0.3],
      ['not started', 1, 60, 0.6],
    ]);
  });
});

describe('categoryMeasure', () => {
  it('measures a length unit by the polyline, an area unit with a height by length × height, and says plan units otherwise', () => {
    expect(categoryMeasure('m', 4.2)).toEqual({ kind: 'length', unit: 'm', factor: 1 });
    expect(categoryMeasure('m2', 3)).toEqual({ kind: 'area', unit: 'm2', factor: 3 });
    expect(categoryMeasure('m2', null)).toEqual({ kind: 'plan', unit: 'plan units', factor: 1 });
    expect(categoryMeasure('each', 2)).toEqual({ kind: 'plan', unit: 'plan units', factor: 1 });
  });
});

describe('progressFraction', () => {
  const stages = [
    { _id: 'a', name: 'Frame', sequence: 1, color: '#000' },
    { _id: 'b', name: 'Board', sequence: 2, color: '#000' },
  ];
  const line = (stagesOf: { _id: string; percentage: number }[]) => ({ points: [], stages: stagesOf });
  /** The fraction of a line whose stages stand at the given [stage id, percentage] pairs. */
  const fractionOf = (...at: [string, number][]) =>
    progressFraction(stages, line(at.map(([_id, percentage]) => ({ _id, percentage }))));
  it('is the mean of the stages percentages, so 5 % of one stage is far from all done', () => {
    expect(fractionOf(['a', 10])).toBeCloseTo(0.05);
    expect(fractionOf(['a', 100], ['b', 100])).toBe(1);
    expect(fractionOf(['a', 100], ['b', 50])).toBe(0.75);
  });
  it('counts unknown stages as nothing, clamps percentages, and is 0 without stages', () => {
    expect(fractionOf(['x', 100], ['a', 150])).toBe(0.5);
    expect(progressFraction([], line([{ _id: 'a', percentage: 100 }]))).toBe(0);
  });
});
