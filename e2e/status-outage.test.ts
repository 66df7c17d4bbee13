import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliKit } from '../main/testing/kit.js';

// `capture-uploader status`, a second process, says what the screen says during a
// storage outage: the running drain records the outage in the queue (main/engine/outages/outage-record.ts)
// when it starts and clears it when storage answers again.

const kit = useCliKit('status-outage');

const cli = (dataDir: string, args: string[]) => kit.run(dataDir, args);

/** `status`'s first line, from another process, polled until it matches `re` (or the time runs out: the last one). */
async function statusUntil(dataDir: string, re: RegExp, ms: number): Promise<string> {
  const end = Date.now() + ms;
  let first = '';
  do {
    first = (await cli(dataDir, ['status'])).out.split('\n')[0] ?? '';
    if (re.test(first)) return first;
    await new Promise((r) => setTimeout(r, 300));
  } while (Date.now() < end);
  return first;
}

describe('status from another process during a storage outage', () => {
  it('says "Waiting for storage" with since, cause and next try while a drain waits, and not once storage answers', async () => {
    const dataDir = join(kit.work, 'queue');
    const file = join(kit.work, 'walk.mp4');
    writeFileSync(file, randomBytes(300_000));
    await kit.svc.admin('POST', '/faults', {
      target: 'storage',
      operation: 'UploadPart',
      times: 0,
      action: { type: 'status', status: 503 },
    });
    const add = await cli(dataDir, ['add', '--structure', kit.structure(), '--type', 'interior', file]);
    expect([0, 3], add.out).toContain(add.code);

    const draining = cli(dataDir, ['drain', '--wait']);
    const during = await statusUntil(dataDir, /^Waiting for storage/, 30_000);
    // Times are in the system's locale: "13:05" or "1:05 PM" (ICU may put a narrow no-break space before PM).
    const time = String.raw`\d{1,2}:\d\d(?:[\s\u202f][AP]M)?`;
    expect(during).toMatch(
      new RegExp(
        `^Waiting for storage — since ${time} · [a-z ]+ · next try (${time}|any moment) · nothing lost · 0% · `,
      ),
    );
    const json = JSON.parse((await cli(dataDir, ['status', '--json'])).out) as { state: { kind: string } };
    expect(json.state.kind).toBe('waiting-storage');

    await kit.svc.admin('DELETE', '/faults');
    const drained = await draining;
    expect(drained.code, drained.out).toBe(0);
    const after = (await cli(dataDir, ['status'])).out.split('\n')[0]!;
    expect(after).toMatch(/^All 1 file uploaded/);
    expect(after).not.toMatch(/Waiting for storage/);
  });
});
