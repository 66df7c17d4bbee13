import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LONE_LENS, NO_TRAILER, shortCapture } from '../shared/capture-warnings.js';
import { addWithKit, jsonLog } from '../main/testing/e2e-cli.js';
import { useCliKit } from '../main/testing/kit.js';
import { withHeaderTime } from '../main/testing/fixture-media.js';

// The command line keeps the warnings the app keeps (shared/capture-warnings.ts), through the
// registration path both share (main/service/uploader.ts enqueue): a recording cut short (no
// Insta360 trailer), a lone _00_ lens and a capture much shorter than the others of its card are
// said by `add`, kept with each capture in the queue, and read back by `status`, `log --summary`
// and the activity log, as the app's finish, tray and notification read them.
const fixtures = fileURLToPath(new URL('../../shared/fixtures/', import.meta.url));
const kit = useCliKit('warnings-cli');

/** The fixture's bytes with one byte of its media data changed: another recording, the container and trailer intact. */
function variant(name: string, at: number, n: number): Buffer {
  const bytes = Buffer.from(readFileSync(join(fixtures, name)));
  bytes[at] = (bytes[at]! + n) % 256;
  return bytes;
}

describe('warnings on the command line', () => {
  it('add says them, the queue keeps them, status and log --summary name them', async () => {
    const card = join(kit.work, 'card', 'DCIM', 'Camera01');
    mkdirSync(card, { recursive: true });
    // Three walks of 4 s (walkthrough.mp4's media data starts at byte 48), then three Insta360
    // recordings of 1.1 s (sample.insv's at 1903): each much shorter than the card's usual 4 s.
    for (let i = 1; i <= 3; i++) writeFileSync(join(card, `walk-${i}.mp4`), variant('walkthrough.mp4', 100_000, i));
    // Each recording's header time is its name's (the camera's clock, main/intake/intake.ts), so
    // no warning of a header that disagrees with its name is said beside the ones this test reads.
    const at = (t: string) => `2023-11-21T${t.slice(0, 2)}:${t.slice(2, 4)}:${t.slice(4)}`;
    const whole = (t: string, lens: string, n: number) =>
      writeFileSync(
        join(card, `VID_20231121_${t}_${lens}_00${n}.insv`),
        withHeaderTime(variant('sample.insv', 100_000, n * 10 + Number(lens)), at(t)),
      );
    whole('201609', '00', 1);
    whole('201609', '10', 1);
    // Cut short: its last byte, and with it the trailer's signature, is gone (both lenses).
    for (const lens of ['00', '10']) {
      const bytes = withHeaderTime(variant('sample.insv', 100_000, 50 + Number(lens)), at('201700'));
      writeFileSync(join(card, `VID_20231121_201700_${lens}_002.insv`), bytes.subarray(0, bytes.length - 1));
    }
    whole('201800', '00', 3); // the lone _00_ lens
    const dataDir = join(kit.work, 'queue');

    const add = await addWithKit(kit, dataDir, [join(kit.work, 'card')]);
    expect(add.code, add.out).toBe(0);
    const short = shortCapture(1.1, 4);
    // Each capture's warnings, once each, after the capture's number and name.
    const said = add.stderr.split('\n').filter((l) => l.startsWith('warning: '));
    const of = (id: number) => said.filter((l) => l.startsWith(`warning: capture ${id} `));
    const status = JSON.parse((await kit.run(dataDir, ['status', '--json'])).stdout) as {
      captures: { id: number; label: string; files: { name?: string; fileName?: string }[] }[];
    };
    const byFile = (name: string) => status.captures.find((c) => JSON.stringify(c.files).includes(name))!.id;
    const cutShort = byFile('VID_20231121_201700_00_002.insv');
    const lone = byFile('VID_20231121_201800_00_003.insv');
    const dual = byFile('VID_20231121_201609_00_001.insv');
    expect(of(cutShort).map((l) => l.replace(/^warning: capture \d+ "[^"]*": /, ''))).toEqual([NO_TRAILER, short]);
    expect(of(lone).map((l) => l.replace(/^warning: capture \d+ "[^"]*": /, ''))).toEqual([LONE_LENS, short]);
    expect(of(dual).map((l) => l.replace(/^warning: capture \d+ "[^"]*": /, ''))).toEqual([short]);
    // The trailer is said once, not once by its file and again by its capture.
    expect(add.stderr.split(NO_TRAILER)).toHaveLength(2);

    const drain = await kit.run(dataDir, ['drain']);
    expect(drain.code, drain.out).toBe(0);
    const head = (await kit.run(dataDir, ['status'])).stdout.split('\n')[0]!;
    expect(head).toMatch(/^All 8 files uploaded, 3 captures with warnings/);
    const summary = (await kit.run(dataDir, ['log', '--summary'])).stdout;
    expect(summary).toContain('3 captures with warnings, uploaded as they are; look at them in the app:');
    expect(summary).toContain(`${NO_TRAILER} ${short}`);
    expect(summary).toContain(`${LONE_LENS} ${short}`);
    expect(summary).not.toContain('Nothing needs you.');
    // Kept in the queue's activity log as the app keeps them: kind `warning`, one line each.
    const warnings = (await jsonLog(kit, dataDir)).filter((l) => l.kind === 'warning').map((l) => l.message);
    expect(warnings.sort()).toEqual([NO_TRAILER, LONE_LENS, short, short, short].sort());
  });
});
