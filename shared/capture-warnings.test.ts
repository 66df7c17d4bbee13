import { describe, expect, it } from 'vitest';
import { LONE_LENS, NO_TRAILER, proposalWarnings, shortCapture } from './capture-warnings.js';

const insta = { model: 'Insta360 X4' };
const dual = (d: number, camera: { model?: string } = insta) => ({
  kind: 'dual-lens' as const,
  files: [{ name: 'VID_00_001.insv' }, { name: 'VID_10_001.insv' }],
  media: { durationSeconds: d, camera },
});

describe('proposalWarnings', () => {
  it('names a missing trailer, a lone lens and a capture much shorter than the others of its card', () => {
    const w = proposalWarnings([
      dual(180),
      dual(190, {}),
      { kind: 'single-lens', files: [{ name: 'VID_00_003.insv' }], media: { durationSeconds: 185, camera: insta } },
      dual(40),
      { kind: 'video', files: [{ name: 'walk.mp4' }], media: { durationSeconds: 200 } },
    ]);
    expect(w).toEqual([[], [NO_TRAILER], [LONE_LENS], [shortCapture(40, 185)], []]);
    expect(shortCapture(40, 185)).toContain('0:40 against about 3:05');
  });

  it('says nothing when all is well: one lens on a card of single-lens recordings, too few durations to compare', () => {
    expect(
      proposalWarnings([
        { kind: 'single-lens', files: [{ name: 'a_00_1.insv' }], media: { durationSeconds: 10, camera: insta } },
      ]),
    ).toEqual([[]]);
    expect(proposalWarnings([dual(200), dual(20)])).toEqual([[], []]);
  });
});
