import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DetectedCard } from './detect.js';
import { describeCard, findCards, mountRoots, watchCards } from './detect.js';
import { writeFakeCard } from '../card/fake-card.js';

const work = mkdtempSync(join(tmpdir(), 'detect-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('card detection', () => {
  it('looks where each system mounts removable volumes', () => {
    expect(mountRoots('linux', 'ana')).toEqual(['/media/ana', '/run/media/ana', '/media']);
    expect(mountRoots('darwin', 'ana')).toEqual(['/Volumes']);
  });

  it('offers a card when a volume holding DCIM/Camera* appears under a mount folder, and drops it when it goes', async () => {
    const media = join(work, 'media');
    mkdirSync(join(media, 'USB_STICK', 'docs'), { recursive: true });
    const seen: DetectedCard[][] = [];
    const stop = watchCards([media, join(work, 'no-such-folder')], (cards) => seen.push(cards), 20);
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]).toEqual([]);
    // The card is written aside and moved in at once, as a mount appears.
    const card = writeFakeCard(join(work, 'staging', 'X4_CARD'), { recordings: 3, bytes: 1000 });
    renameSync(card.root, join(media, 'X4_CARD'));
    await expect.poll(() => seen.length).toBe(2);
    expect(seen[1]).toEqual([{ root: join(media, 'X4_CARD'), name: 'X4_CARD', recordings: 3, bytes: 6000 }]);
    expect(describeCard(seen[1]![0]!)).toBe('Insta360 card, 3 recordings, 5.9 KiB');
    // Unmounted at once, as a card is pulled. A poll whose walk the removal overtook once
    // reported the card with 0 recordings before dropping it (a fourth report).
    renameSync(join(media, 'X4_CARD'), join(work, 'staging', 'X4_CARD_GONE'));
    rmSync(join(work, 'staging', 'X4_CARD_GONE'), { recursive: true });
    await expect.poll(() => seen.length).toBe(3);
    expect(seen[2]).toEqual([]);
    stop();
  });

  it('finds a card by a Windows-style drive root, matching DCIM and Camera names in any case', async () => {
    const drive = join(work, 'E');
    mkdirSync(join(drive, 'dcim', 'CAMERA01'), { recursive: true });
    writeFakeCard(join(work, 'tmp-card'), { recordings: 1 });
    expect((await findCards([], [drive])).map((c) => c.root)).toEqual([drive]);
    expect(await findCards([], [join(work, 'tmp-card', 'MISC')])).toEqual([]);
  });
});
