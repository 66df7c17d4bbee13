import { describe, expect, it } from 'vitest';
import { CAPTURE_RULE_MESSAGES, captureFilesViolation, contentTypeOf, mediaKindOf } from './capture-rules.js';
import type { CandidateFile } from './grouping.js';
import { groupIntoCaptures } from './grouping.js';

const f = (name: string, size = 100): CandidateFile => ({ path: `/card/DCIM/${name}`, name, size });
const names = (c: { files: CandidateFile[] }) => c.files.map((x) => x.name);
/** The _00_ and _10_ lens files (in that order) of the recording taken at `stamp` (YYYYMMDD_hhmmss), segment `segment`. */
const bothLenses = (stamp: string, segment: string) =>
  ['00', '10'].map((lens) => f(`VID_${stamp}_${lens}_${segment}.insv`));

describe('groupIntoCaptures', () => {
  it('pairs the _00_ and _10_ lenses of one recording, lens 00 first', () => {
    const { captures, setAside } = groupIntoCaptures([
      f('VID_20261120_150405_10_001.insv'),
      f('VID_20261120_150405_00_001.insv'),
    ]);
    expect(setAside).toEqual([]);
    expect(captures).toHaveLength(1);
    expect(captures[0]).toMatchObject({ kind: 'dual-lens', recordedAt: '2026-11-20T15:04:05', segment: '001' });
    expect(names(captures[0]!)).toEqual(['VID_20261120_150405_00_001.insv', 'VID_20261120_150405_10_001.insv']);
  });

  it('keeps split segments and other recordings apart, and a lone _00_ as single-lens', () => {
    const { captures } = groupIntoCaptures([
      ...bothLenses('20261120_150405', '001'),
      ...bothLenses('20261120_150405', '002'),
      f('VID_20261120_160000_00_003.insv'),
    ]);
    expect(captures.map((c) => [c.kind, c.segment, c.files.length])).toEqual([
      ['dual-lens', '001', 2],
      ['dual-lens', '002', 2],
      ['single-lens', '003', 1],
    ]);
  });

  it('puts an .mp4 with the .csv of the same name, case-insensitively', () => {
    const { captures, setAside } = groupIntoCaptures([f('Walkthrough.CSV'), f('walkthrough.mp4'), f('other.mp4')]);
    expect(setAside).toEqual([]);
    expect(captures.map(names)).toEqual([['other.mp4'], ['walkthrough.mp4', 'Walkthrough.CSV']]);
  });

  it('puts an .mp4 with its .csv when their names differ only in Unicode form (NFD from a Mac, NFC elsewhere)', () => {
    const nfd = 'Fac\u0327ade walk'; // "Façade" with a combining cedilla
    const nfc = 'Fa\u00e7ade walk';
    const { captures, setAside } = groupIntoCaptures([f(`${nfd}.csv`), f(`${nfc}.mp4`)]);
    expect(setAside).toEqual([]);
    expect(captures.map(names)).toEqual([[`${nfc}.mp4`, `${nfd}.csv`]]);
  });

  it('sets aside previews, unsupported types, empty files, orphan lenses and CSVs, and duplicates, with reasons', () => {
    const dup = f('VID_20261120_170000_00_004.insv');
    const { captures, setAside } = groupIntoCaptures([
      f('LRV_20261120_150405_11_001.insv'),
      f('clip.mov'),
      f('empty.mp4', 0),
      f('VID_20261120_150405_10_009.insv'),
      f('notes.csv'),
      dup,
      dup,
    ]);
    expect(captures.map(names)).toEqual([['VID_20261120_170000_00_004.insv']]);
    expect(setAside.map((s) => [s.file.name, s.reason])).toEqual([
      ['LRV_20261120_150405_11_001.insv', expect.stringMatching(/Low-resolution preview/)],
      ['clip.mov', 'Only INSV, MP4, and CSV files are allowed: only .insv, .mp4 and .csv files are uploaded.'],
      ['empty.mp4', expect.stringMatching(/empty \(0 bytes\)/)],
      ['VID_20261120_170000_00_004.insv', expect.stringMatching(/Listed twice/)],
      ['VID_20261120_150405_10_009.insv', expect.stringMatching(/add VID_20261120_150405_00_009\.insv too/)],
      [
        'notes.csv',
        'At least one INSV or MP4 file is required, CSV is optional: add the .mp4 or .insv of the same name as this CSV.',
      ],
    ]);
  });

  it('never proposes a capture that breaks the §7 file rules', () => {
    const { captures } = groupIntoCaptures([
      ...bothLenses('20261120_150405', '001'),
      f('VID_20261120_150405_00_001.csv'),
      f('a.mp4'),
      f('a.csv'),
    ]);
    for (const c of captures) expect(captureFilesViolation(names(c))).toBeUndefined();
    expect(captures.map((c) => c.files.length).sort()).toEqual([2, 3]);
  });
});

describe('capture rules (§7, §8)', () => {
  it.each([
    [['a.insv', 'b.insv', 'c.csv', 'd.mp4'], CAPTURE_RULE_MESSAGES.tooManyFiles],
    [['a.insv', ''], CAPTURE_RULE_MESSAGES.fileName],
    [['noextension'], CAPTURE_RULE_MESSAGES.fileName],
    [['a.insv', 'b.MOV'], CAPTURE_RULE_MESSAGES.fileType],
    [['a.csv'], CAPTURE_RULE_MESSAGES.noVideo],
    [[], CAPTURE_RULE_MESSAGES.noVideo],
  ])('%j → %s', (list, message) => {
    expect(captureFilesViolation(list)).toBe(message);
  });

  it('accepts up to three files with one video, extensions in any case', () => {
    expect(captureFilesViolation(['A.INSV', 'b.Insv', 'c.CsV'])).toBeUndefined();
    expect(mediaKindOf('X.MP4')).toBe('mp4');
    expect(contentTypeOf('insv')).toBe('video/insv');
  });
});

describe('Insta360 names whose date or time cannot be', () => {
  it('still group, labelled by name, with no recording time', () => {
    const { captures } = groupIntoCaptures([
      { path: '/c/VID_20261123_101060_00_001.insv', name: 'VID_20261123_101060_00_001.insv', size: 10 },
    ]);
    expect(captures.map((c) => [c.label, 'recordedAt' in c])).toEqual([['VID_20261123_101060 · segment 001', false]]);
  });
});
