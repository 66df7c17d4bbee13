import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IpcHandlers } from '../ipc/dispatch.js';
import { readMediaFacts } from '../media/metadata.js';
import type { HandlerContext } from '../service/handlers/handler-context.js';
import { uploadHandlers } from '../service/handlers/upload.js';
import { prepareCaptures } from './intake.js';
import { withHeaderTime } from '../testing/fixture-media.js';

// The recorded time is the camera's clock as its Insta360 file name gives it, in the computer's
// zone, whichever convention the MP4 header follows (QuickTime says UTC; many cameras write their
// wall time). The real fixture (../shared/fixtures/sample.insv, CreateDate 2023:11:21 20:16:09,
// no zone) under copies named as a camera would, and with its mvhd creation time set in a copy
// for the summer; Berlin is UTC+1 in winter and UTC+2 in summer.

const fixtures = join(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures');
const sample = readFileSync(join(fixtures, 'sample.insv'));
const work = mkdtempSync(join(tmpdir(), 'recorded-time-'));
const tz = process.env.TZ;
beforeAll(() => void (process.env.TZ = 'Europe/Berlin'));
afterAll(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
  rmSync(work, { recursive: true, force: true });
});

/** The fixture's bytes with its mvhd creation time set to `digits` read as UTC. */
const sampleAt = (digits: string): Buffer => withHeaderTime(sample, digits);

let n = 0;
/** A card folder with one recording named `VID_<stamp>_00_001.insv` holding `bytes`. */
function recording(stamp: string, bytes: Buffer = sample): string {
  const dir = join(work, `card-${n++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, `VID_${stamp}_00_001.insv`), bytes);
  return dir;
}

const choices = { project: 'p1', structure: 's1', type: 'interior' as const };
/** The CLI's and the queue's path: prepareCaptures with the media facts read from the file. */
async function queuedTime(dir: string) {
  const { captures, warnings } = await prepareCaptures([dir], choices, readMediaFacts);
  expect(captures).toHaveLength(1);
  return { at: captures[0]!.request.captureDateTime, warnings: warnings.map((w) => w.reason) };
}
/** The window's path: the registration table's proposal (files.inspect). */
async function proposedTime(dir: string) {
  const inspect = uploadHandlers({ uploader: () => undefined } as unknown as HandlerContext, async () => [])[
    'capture:files.inspect'
  ] as IpcHandlers['capture:files.inspect'];
  const { captures } = await inspect([dir]);
  expect(captures).toHaveLength(1);
  return { at: captures[0]!.capturedAt, warnings: captures[0]!.warnings ?? [] };
}

describe.each([
  ['queued (CLI add, the queue)', queuedTime],
  ['proposed (the registration table)', proposedTime],
])('the recorded time %s, in Berlin', (_, timeOf) => {
  it("winter, a header holding the camera's wall time: the name's time in the computer's zone, not an hour late", async () => {
    // Header 20:16:09 and name 20:16:09: the header is wall time. 20:16:09 CET is 19:16:09Z.
    const got = await timeOf(recording('20231121_201609'));
    expect(got.at).toBe('2023-11-21T19:16:09.000Z');
    expect(got.warnings.filter((w) => w.startsWith("The MP4 header's time"))).toEqual([]);
  });

  it("winter, a UTC header: the same moment as the name's time in the computer's zone", async () => {
    // Header 20:16:09Z is 21:16:09 CET, the name's time.
    const got = await timeOf(recording('20231121_211609'));
    expect(got.at).toBe('2023-11-21T20:16:09.000Z');
    expect(got.warnings.filter((w) => w.startsWith("The MP4 header's time"))).toEqual([]);
  });

  it("summer, a header holding the camera's wall time: the name's time in summer time", async () => {
    const got = await timeOf(recording('20260714_093000', sampleAt('2026-07-14T09:30:00')));
    expect(got.at).toBe('2026-07-14T07:30:00.000Z');
  });

  it("summer, a UTC header: the same moment as the name's time", async () => {
    const got = await timeOf(recording('20260714_093000', sampleAt('2026-07-14T07:30:00')));
    expect(got.at).toBe('2026-07-14T07:30:00.000Z');
  });

  it("a header that is neither: the name's time, and the disagreement named", async () => {
    const got = await timeOf(recording('20231121_104200'));
    expect(got.at).toBe('2023-11-21T09:42:00.000Z');
    expect(got.warnings).toContain(
      "The MP4 header's time (2023-11-21 20:16:09) is neither the file name's time (2023-11-21 10:42:00) nor that time in UTC: the file name's time (the camera's clock) is used. Check the camera's clock and time zone.",
    );
  });

  it('a name without a time: the header alone, as UTC', async () => {
    const dir = join(work, `card-${n++}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'walk.mp4'), readFileSync(join(fixtures, 'walkthrough.mp4')));
    expect((await timeOf(dir)).at).toBe('2026-03-14T09:26:53.000Z');
  });
});
