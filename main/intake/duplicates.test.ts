import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { IpcHandlers } from '../ipc/dispatch.js';
import type { HandlerContext } from '../service/handlers/handler-context.js';
import { uploadHandlers } from '../service/handlers/upload.js';

// A recording twice on one card (the same content at two paths) is registered once: the queue
// refuses the second by its content fingerprint. The registration table says so before the
// confirmation, so the confirmation counts what will be registered.

const fixtures = join(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures');
const work = mkdtempSync(join(tmpdir(), 'duplicates-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const inspect = uploadHandlers({ uploader: () => undefined } as unknown as HandlerContext, async () => [])[
  'capture:files.inspect'
] as IpcHandlers['capture:files.inspect'];

describe('the same recording twice in one drop', () => {
  it('the second copy is marked with the first one it repeats; distinct recordings of the same size are not', async () => {
    const card = join(work, 'card');
    mkdirSync(join(card, 'MISC'), { recursive: true });
    copyFileSync(join(fixtures, 'walkthrough.mp4'), join(card, 'walk.mp4'));
    copyFileSync(join(fixtures, 'walkthrough.mp4'), join(card, 'MISC', 'walk-copy.mp4'));
    // Two lenses and another recording of the same sizes, different bytes: not duplicates.
    for (const name of ['VID_20261123_101010_00_001.insv', 'VID_20261123_101010_10_001.insv'])
      writeFileSync(join(card, name), randomBytes(4096));
    writeFileSync(join(card, 'VID_20261123_101510_00_002.insv'), randomBytes(4096));
    const { captures } = await inspect([card]);
    expect(captures).toHaveLength(4);
    const byName = new Map(captures.map((c) => [c.files[0]!.name, c]));
    const first = byName.get('walk.mp4')!;
    const second = byName.get('walk-copy.mp4')!;
    // Which of the two paths comes first is the walk's order; one is marked, naming the other.
    const [kept, marked] = first.duplicateOf ? [second, first] : [first, second];
    expect(kept.duplicateOf).toBeUndefined();
    expect(marked.duplicateOf).toBe(kept.label);
    expect(captures.filter((c) => c.duplicateOf)).toHaveLength(1);
  });
});
