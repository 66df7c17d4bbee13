import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliKit } from '../main/testing/kit.js';

// "the screen, the CLI and the exit code say only what is true": `drain` stopped by a
// refused password says so to the end (a STOPPED line, a last line that asks for the settings to
// be corrected, exit 3) and never shows the password; once it has ended no engine is stopped, so
// `status` from another process does not say "Needs you" (the next drain tries again). While an
// engine that stays open is stopped (the app's), `status` says "Needs you":
// main/service/app-blocked.test.ts and main/cli/status-blocked.test.ts.

const kit = useCliKit('status-blocked');

const cli = (dataDir: string, args: string[], env: Record<string, string> = {}) => kit.run(dataDir, args, { env });

describe('drain stopped by a refused password', () => {
  it('says STOPPED, ends asking for the settings, exits 1 (a person must correct them) and shows no password; status after it says no engine is stopped', async () => {
    const dataDir = join(kit.work, 'queue');
    const file = join(kit.work, 'walk.mp4');
    writeFileSync(file, randomBytes(200_000));
    const wrong = { CAPTURE_PASSWORD: 'wrong-password-0815' };
    const add = await cli(dataDir, ['add', '--structure', kit.structure(), '--type', 'interior', file], wrong);
    expect(add.code, add.stdout + add.stderr).toBe(1);

    const drained = await cli(dataDir, ['drain', '--wait'], wrong);
    expect(drained.code, drained.stdout + drained.stderr).toBe(1);
    const lines = drained.stdout.trim().split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^STOPPED The sign-in service refuses the account \(.+\): fix the email or password in the settings; 1 capture\(s\) and 0 file\(s\) wait\.$/,
      ),
    );
    expect(lines.at(-1)).toBe(
      'Needs you: correct the settings named above and run drain again; nothing queued is lost.',
    );
    for (const out of [add.stdout, add.stderr, drained.stdout, drained.stderr])
      expect(out).not.toContain(wrong.CAPTURE_PASSWORD);

    const status = await cli(dataDir, ['status']);
    expect(status.stdout.split('\n')[0]).toMatch(/^Waiting · 0% · /);

    const right = await cli(dataDir, ['drain']);
    expect(right.code, right.stdout + right.stderr).toBe(0);
    expect((await cli(dataDir, ['status'])).stdout.split('\n')[0]).toMatch(/^All 1 file uploaded/);
  });
});
