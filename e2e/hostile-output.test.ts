import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UNSAFE_CHARS } from '../shared/printable.js';
import { useCliKit } from '../main/testing/kit.js';
import { addArgs, addWithKit } from '../main/testing/e2e-cli.js';

// Output no answer can steer: the gateway answers capture and upload ids holding ESC[2J, BEL,
// CR LF, U+009B (a C1 control terminals read as CSI) and U+202E (right-to-left override) (the
// local service's hostileIds), and every command that shows them, as lines or as --json, writes
// them escaped: nothing raw but the newline that ends each line.

const kit = useCliKit('hostile-output');
afterEach(async () => void (await kit.svc.admin('DELETE', '/faults')));

/** The characters of `text` that no output may pass on raw (shared/printable.ts UNSAFE_CHARS), line ends aside. */
const raw = (text: string) =>
  [...text.replace(/\n/g, '').matchAll(UNSAFE_CHARS)].map(
    (m) => `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
  );

describe('ids from the gateway holding terminal controls', () => {
  it('are written escaped by add, drain, status and log, as lines and as --json', async () => {
    const hostile = { target: 'gateway', operation: 'add-capture', action: { type: 'hostileIds' } } as const;
    const dataDir = join(kit.work, 'hostile');
    const jsonDir = join(kit.work, 'hostile-json');
    await kit.fault(hostile);
    const runs = {
      add: await addWithKit(kit, dataDir, [kit.file('hostile.mp4', 3000).path]),
      drain: await kit.run(dataDir, ['drain']),
      status: await kit.run(dataDir, ['status']),
      statusJson: await kit.run(dataDir, ['--json', 'status']),
      log: await kit.run(dataDir, ['log']),
      logJson: await kit.run(dataDir, ['--json', 'log']),
    };
    await kit.fault(hostile);
    Object.assign(runs, {
      addJson: await kit.run(jsonDir, [
        '--json',
        ...addArgs(kit.structure(), [kit.file('hostile-json.mp4', 3000).path]),
      ]),
      drainJson: await kit.run(jsonDir, ['--json', 'drain']),
    });
    expect(Object.values(runs).map((r) => r.code)).toEqual(Object.values(runs).map(() => 0));
    const found = Object.fromEntries(Object.entries(runs).map(([name, r]) => [name, raw(r.stdout + r.stderr)]));
    expect(found).toEqual(Object.fromEntries(Object.keys(runs).map((name) => [name, []])));
    // Shown, escaped: the id is there to be read, on one line.
    expect(runs.status.stdout).toMatch(/\(id cap-[0-9a-f]+\\u001b\[2J\\u0007\\r\\n\\u009b31m\\u202e\)/);
    // The JSON says the id as it is, in \u sequences.
    const doc = JSON.parse(runs.statusJson.stdout) as { captures: { captureId: string }[] };
    expect(doc.captures[0]!.captureId.endsWith('\u001b[2J\u0007\r\n\u009b31m\u202e')).toBe(true);
    expect(runs.statusJson.stdout).toContain('\\u001b[2J\\u0007\\u000d\\u000a\\u009b31m\\u202e');
  }, 120_000);
});
