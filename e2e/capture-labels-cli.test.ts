import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseShift, shiftTimes } from '../shared/time-shift.js';
import { useCliKit } from '../main/testing/kit.js';
import { addWithKit } from '../main/testing/e2e-cli.js';

// What the command line says of a capture whose camera clock was an hour off and was shifted:
// `status` and `log` name it by the time the platform got (shared/capture-label.ts).
// A zone of its own, so "local time" is one the test knows whatever the machine's.
const TZ = 'Europe/Berlin';

const kit = useCliKit('labels-cli');

const cli = (dataDir: string, args: string[]) => kit.run(dataDir, args, { env: { TZ } });

describe('a shifted capture on the command line', () => {
  it('status, status --json and log name it by the shifted time, not the camera clock in its file name', async () => {
    const dataDir = join(kit.work, 'shifted');
    const card = join(kit.work, 'card');
    mkdirSync(card);
    // The camera's clock says 08:00:00 (Berlin, UTC+01:00 in November); it was an hour slow.
    for (const lens of ['00', '10'])
      writeFileSync(join(card, `VID_20261123_080000_${lens}_001.insv`), randomBytes(4096));
    const [shifted] = shiftTimes(['2026-11-23T08:00:00+01:00'], parseShift('+01:00')!);
    expect(shifted).toBe('2026-11-23T09:00:00+01:00');
    const add = await addWithKit(kit, dataDir, [card], { flags: ['--captured-at', shifted!] }, { env: { TZ } });
    expect(add.code, add.stderr).toBe(0);
    const label = '2026-11-23 09:00:00 · segment 001 · 2 lenses';
    expect(add.stdout).toContain(`"${label}"`);

    const drain = await cli(dataDir, ['drain']);
    expect(drain.code, drain.stderr).toBe(0);
    const status = await cli(dataDir, ['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`capture 1 +completed +${label}`));
    const json = JSON.parse((await cli(dataDir, ['status', '--json'])).stdout) as {
      captures: { label: string; captureDateTime?: string }[];
    };
    expect(json.captures.map((c) => c.label)).toEqual([label]);
    const log = await cli(dataDir, ['log', '--since', '2020-01-01']);
    expect(log.code, log.stderr).toBe(0);
    const captureLines = log.stdout.split('\n').filter((l) => /\b(registered|capture-completed)\b/.test(l));
    expect(captureLines).toHaveLength(2);
    for (const line of captureLines) expect(line).toContain(label);
    // Nowhere the camera's wrong clock as the capture's name.
    for (const out of [add.stdout, status.stdout, log.stdout]) expect(out).not.toContain('08:00:00 · segment 001');
    // The platform got the same time.
    expect(
      Object.values(kit.svc.store.state.captures).map(
        (c) => (c.request as { captureDateTime: string }).captureDateTime,
      ),
    ).toContain(shifted);
  });
});
