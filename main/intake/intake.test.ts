import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectPaths, passesOfWallTime, prepareCaptures, suggestedTime } from './intake.js';

const work = mkdtempSync(join(tmpdir(), 'intake-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const choices = { project: 'p1', structure: 's1', type: 'interior' as const };

describe('one recording, one capture, whatever the path', () => {
  it('the same file given as absolute, relative, with ./ and //, and through a symlink is queued once, by its resolved path', async () => {
    const dir = mkdtempSync(join(work, 'paths-'));
    const file = join(dir, 'VID_20261123_101010_00_001.insv');
    writeFileSync(file, randomBytes(3000));
    symlinkSync(file, join(dir, 'link-to-it.insv'));
    const rel = relative(process.cwd(), file);
    const dotted = join(dir, '.', 'VID_20261123_101010_00_001.insv').replace(dir, `${dir}/.//`);
    const { captures, refused } = await prepareCaptures([file, rel, dotted, join(dir, 'link-to-it.insv')], choices);
    expect(captures).toHaveLength(1);
    expect(captures[0]!.files.map((f) => f.path)).toEqual([file]);
    expect(captures[0]!.files[0]).toMatchObject({
      dev: expect.any(String),
      ino: expect.any(String),
      ctimeNs: expect.any(String),
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // The symlink is named as another path to the same file; spellings of the same path are silent.
    expect(refused).toEqual([
      {
        path: join(dir, 'link-to-it.insv'),
        reason: `The same file as ${file} (another path to it); it is added once.`,
      },
    ]);
  });

  it("a recording that is a symlink keeps the link's name, so its lenses pair and its time is read, and is read through the link", async () => {
    const dir = mkdtempSync(join(work, 'named-links-'));
    const store = mkdtempSync(join(work, 'store-'));
    writeFileSync(join(store, 'a.bin'), randomBytes(3000));
    writeFileSync(join(store, 'b.bin'), randomBytes(3000));
    symlinkSync(join(store, 'a.bin'), join(dir, 'VID_20261123_101112_00_007.insv'));
    symlinkSync(join(store, 'b.bin'), join(dir, 'VID_20261123_101112_10_007.insv'));
    const { captures, refused } = await prepareCaptures([dir], choices);
    expect(refused).toEqual([]);
    expect(captures).toHaveLength(1);
    expect(captures[0]!.files.map((f) => [f.fileName, f.path])).toEqual([
      ['VID_20261123_101112_00_007.insv', join(dir, 'VID_20261123_101112_00_007.insv')],
      ['VID_20261123_101112_10_007.insv', join(dir, 'VID_20261123_101112_10_007.insv')],
    ]);
    expect(captures[0]!.request.captureDateTime).toBe(new Date('2026-11-23T10:11:12').toISOString());
  });

  it('a folder with a looping link and a dangling link lists both, with the reason, and takes the rest', async () => {
    const dir = mkdtempSync(join(work, 'links-'));
    writeFileSync(join(dir, 'VID_20261123_111111_00_001.insv'), randomBytes(2000));
    symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
    symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
    symlinkSync(join(dir, 'gone.insv'), join(dir, 'dangling.insv'));
    const { groups, refused } = await inspectPaths([dir]);
    expect(groups.flatMap((g) => g.files.map((f) => f.name))).toEqual(['VID_20261123_111111_00_001.insv']);
    expect(refused).toEqual(
      expect.arrayContaining([
        {
          path: join(dir, 'dangling.insv'),
          reason: expect.stringMatching(/symbolic link to something that no longer exists/),
        },
        { path: join(dir, 'loop-a'), reason: expect.stringMatching(/loops back on itself/) },
        { path: join(dir, 'loop-b'), reason: expect.stringMatching(/loops back on itself/) },
      ]),
    );
  });

  it('a copy of a recording at another path has the same fingerprint; another recording does not', async () => {
    const a = mkdtempSync(join(work, 'card-a-'));
    const b = mkdtempSync(join(work, 'card-b-'));
    const name = 'VID_20261123_121212_00_001.insv';
    writeFileSync(join(a, name), randomBytes(3 * 1024 * 1024 + 5));
    copyFileSync(join(a, name), join(b, name));
    writeFileSync(join(b, 'VID_20261123_131313_00_002.insv'), randomBytes(3 * 1024 * 1024 + 5));
    const [one, two] = await Promise.all([prepareCaptures([join(a, name)], choices), prepareCaptures([b], choices)]);
    const prints = two.captures.map((c) => c.files[0]!.fingerprint);
    expect(prints).toContain(one.captures[0]!.files[0]!.fingerprint);
    expect(new Set(prints).size).toBe(2);
  });
});

describe('intake never crashes, whatever the names and trees (property-based)', () => {
  // Names as cards and people make them: Insta360-like, other extensions, spaces, unicode,
  // control characters, dots; trees with folders, links to files, links to nowhere.
  const name = fc
    .oneof(
      fc
        .tuple(
          fc.integer({ min: 0, max: 99 }),
          fc.constantFrom('00', '10'),
          fc.constantFrom('insv', 'INSV', 'mp4', 'lrv'),
        )
        .map(([n, lens, ext]) => `VID_20261123_1010${String(n).padStart(2, '0')}_${lens}_001.${ext}`),
      fc
        .tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('.insv', '.mp4', '.csv', '.txt', '', '.MP4'))
        .map(([s, ext]) => `${s}${ext}`),
    )
    .filter((n) => n !== '.' && n !== '..' && !n.includes('/') && !n.includes('\0') && Buffer.byteLength(n) < 200);
  const entry = fc.record({
    name,
    kind: fc.constantFrom('file', 'empty', 'dir', 'link', 'dangling'),
    size: fc.integer({ min: 1, max: 4096 }),
  });

  it('returns captures and reasons for every tree, never throws, and every path is accounted for', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(entry, { selector: (e) => e.name, maxLength: 12 }), async (entries) => {
        const dir = join(work, `fuzz-${n++}`);
        mkdirSync(dir);
        let firstFile: string | undefined;
        for (const e of entries) {
          const p = join(dir, e.name);
          if (e.kind === 'file') {
            writeFileSync(p, randomBytes(e.size));
            firstFile ??= p;
          } else if (e.kind === 'empty') writeFileSync(p, '');
          else if (e.kind === 'dir') mkdirSync(p);
          else if (e.kind === 'link') symlinkSync(firstFile ?? join(dir, 'nothing-yet'), p);
          else symlinkSync(join(dir, `missing-${e.name}`), p);
        }
        const { captures, refused } = await prepareCaptures(
          [dir, ...entries.slice(0, 2).map((e) => join(dir, e.name))],
          choices,
        );
        for (const c of captures) {
          expect(c.files.length).toBeGreaterThan(0);
          expect(c.files.length).toBeLessThanOrEqual(3);
          for (const f of c.files) expect(f.path.startsWith('/')).toBe(true);
        }
        for (const r of refused) expect(r.reason.length).toBeGreaterThan(0);
        // Every plain file is either queued or refused with a reason.
        const queued = new Set(captures.flatMap((c) => c.files.map((f) => f.path)));
        const refusedPaths = new Set(refused.map((r) => r.path));
        for (const e of entries.filter((x) => x.kind === 'file' || x.kind === 'empty')) {
          const p = join(dir, e.name);
          expect(queued.has(p) || refusedPaths.has(p)).toBe(true);
        }
      }),
      { numRuns: 60, seed: 20261123 },
    );
  });
});

describe('odd media is queued with a warning, not refused', () => {
  it('random bytes named .insv and a truncated .mp4 are warned about; the real recording is not', async () => {
    const { readMediaFacts } = await import('../media/metadata.js');
    const { fileURLToPath } = await import('node:url');
    const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
    const dir = mkdtempSync(join(work, 'odd-'));
    writeFileSync(join(dir, 'VID_20261123_151515_00_001.insv'), randomBytes(5000));
    const mp4 = readFileSync(join(fixtures, 'walkthrough.mp4'));
    writeFileSync(join(dir, 'cut.mp4'), mp4.subarray(0, 4096));
    copyFileSync(join(fixtures, 'sample.insv'), join(dir, 'VID_20231121_201609_00_007.insv'));
    const { captures, refused, warnings } = await prepareCaptures([dir], choices, readMediaFacts);
    expect(refused).toEqual([]);
    expect(captures).toHaveLength(3);
    expect(warnings.map((w) => [w.path.split('/').at(-1), w.reason.slice(0, 28)]).sort()).toEqual([
      ['VID_20261123_151515_00_001.insv', 'No readable MP4 header (moov'],
      ['cut.mp4', 'No readable MP4 header (moov'],
    ]);
  });
});

describe('a recording made in the hour a clock change repeats', () => {
  // Berlin, 25 Oct 2026: at 03:00 CEST the clocks go back to 02:00 CET, so 02:30 happens twice,
  // at 00:30Z and at 01:30Z. The file's modification time (the recording's end) tells them apart.
  const tz = process.env.TZ;
  beforeAll(() => void (process.env.TZ = 'Europe/Berlin'));
  afterAll(() => void (tz === undefined ? delete process.env.TZ : (process.env.TZ = tz)));
  const group = (recordedAt: string, mtimeMs: number) =>
    ({ recordedAt, files: [{ mtimeMs }] }) as unknown as Parameters<typeof suggestedTime>[0];

  it("takes the pass nearest the file's modification time, so two recordings an hour apart keep their times", () => {
    expect(passesOfWallTime('2026-10-25T02:30:00')).toEqual([
      Date.parse('2026-10-25T00:30:00Z'),
      Date.parse('2026-10-25T01:30:00Z'),
    ]);
    expect(suggestedTime(group('2026-10-25T02:30:00', Date.parse('2026-10-25T00:36:00Z')))).toBe(
      '2026-10-25T00:30:00.000Z',
    );
    expect(suggestedTime(group('2026-10-25T02:30:00', Date.parse('2026-10-25T01:36:00Z')))).toBe(
      '2026-10-25T01:30:00.000Z',
    );
  });

  it('has one pass on any other day', () => {
    expect(passesOfWallTime('2026-11-23T10:11:12')).toEqual([Date.parse('2026-11-23T09:11:12Z')]);
  });
});
