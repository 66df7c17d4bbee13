import { ListPartsCommand } from '@aws-sdk/client-s3';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queueState } from '../../../shared/queue-state.js';
import { writeFakeCard } from '../../card/fake-card.js';
import { drainExitCode, summaryLines } from '../../cli/render.js';
import { statusState } from '../../status/status-document.js';
import { committedTotals } from '../../queue/totals.js';
import { MiB, sha256, useServiceKit } from '../../testing/kit.js';
import { cardOnMount, untilPartsStored } from '../../testing/card-mount.js';

// Deliver 5, "Done when": in "upload straight from the card" mode (today's `add` of a
// card's files), a card pulled out mid-upload is one state, "Card removed: put it back to
// continue (N recordings waiting)", not a failure per file; put back under another mount path, it
// is recognised and the uploads resume by themselves with nothing storage held sent again.

const kit = useServiceKit('card-pulled');

/** UploadPart requests storage received, counted per object key and part number ("key#n"). */
function putCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of kit.svc.storage.received) {
    if (r.operation !== 'UploadPart') continue;
    const k = `${r.key}#${r.partNumber}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}

describe('a card pulled out while its recordings upload straight from it', () => {
  it('waits as one card-removed state, and put back under another mount path resumes with nothing storage held sent again, byte-identical', async () => {
    // Two recordings, both lenses: four files of 11 MiB, three parts each at the service's 5 MiB.
    const { mount, aside, card, bytes, watch } = cardOnMount(kit.work, 'media', 'pocket', 'X4_CARD', {
      recordings: 2,
      bytes: 11 * MiB,
    });
    const u = kit.uploader('pulled', { bandwidthBytesPerSecond: 6 * MiB, concurrency: 2, cards: watch });
    const { queued, refused } = await u.add([card.root], { structure: kit.structure(), type: 'interior' });
    expect([queued.length, refused.filter((r) => r.path.endsWith('.insv') && !r.path.includes('LRV_'))]).toEqual([
      2,
      [],
    ]);
    const files = queued.flatMap((c) => u.queue.filesOf(c));
    expect(files).toHaveLength(4);
    const keyOf = (id: number) => kit.svc.store.state.uploads[u.queue.file(id)!.uploadId!]!.key;

    const draining = u.engine.drain({ wait: true, deadline: Date.now() + 120_000 });
    // Pulled once some parts are stored and the rest is not.
    await untilPartsStored(u, files, 3);
    renameSync(card.root, join(aside, 'X4_CARD'));

    // One state for the card; nothing failed, nothing counted as an attempt, nothing uploading.
    await expect
      .poll(
        () =>
          u.queue.files(['uploading']).length +
          (queueState(committedTotals(u.queue.totals())).kind === 'card-removed' ? 0 : 1),
        { timeout: 30_000 },
      )
      .toBe(0);
    const state = queueState(committedTotals(u.queue.totals()));
    expect(state.headline).toBe('Card X4_CARD removed: put it back to continue (2 recordings waiting)');
    expect(statusState(u.queue).line).toMatch(
      /^Card X4_CARD removed: put it back to continue \(2 recordings waiting\) — /,
    );
    expect(u.queue.files(['failed'])).toEqual([]);
    // A drain stopped now (the CLI's `drain` without --wait) says it once, and a person is needed (exit 1).
    const now = u.engine.summary();
    expect([now.cardRemoved, now.failed, drainExitCode(now)]).toEqual([state.headline, [], 1]);
    expect(summaryLines(now).filter((l) => l.startsWith('CARD REMOVED'))).toEqual([
      `CARD REMOVED ${state.headline}; \`drain --wait\` resumes by itself once it is back, under any mount path`,
    ]);
    const waiting = files.map((f) => u.queue.file(f.id)!).filter((f) => f.state !== 'completed');
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.map((f) => [f.state, f.error, f.attempts, f.nextAttemptAt])).toEqual(
      waiting.map(() => ['pending', null, 0, null]),
    );

    // What storage holds now must never be sent again.
    const held: string[] = [];
    for (const f of files) {
      const up = kit.svc.store.state.uploads[u.queue.file(f.id)!.uploadId!]!;
      if (u.queue.file(f.id)!.state === 'completed') {
        held.push(...[1, 2, 3].map((n) => `${up.key}#${n}`)); // finished before the pull: its object is whole
        continue;
      }
      const listed = await kit.svc
        .s3()
        .send(new ListPartsCommand({ Bucket: kit.svc.info.s3.bucket, Key: up.key, UploadId: up.storageUploadId }));
      for (const p of listed.Parts ?? []) held.push(`${up.key}#${p.PartNumber}`);
    }
    expect(held.length).toBeGreaterThanOrEqual(3);

    // Put back under another mount folder name, beside a card that only looks the same (same
    // names and sizes, other bytes) and is looked at first: only the real one is taken.
    writeFakeCard(join(mount, 'A_LOOKALIKE'), { recordings: 2, bytes: 11 * MiB });
    renameSync(join(aside, 'X4_CARD'), join(mount, 'X4_CARD_2'));
    const summary = await draining;

    expect([summary.failed, summary.cardRemoved, drainExitCode(summary)]).toEqual([[], null, 0]);
    expect(summary.completed.map((f) => f.id).sort()).toEqual(files.map((f) => f.id).sort());
    for (const f of files) {
      const row = u.queue.file(f.id)!;
      expect(row.path).toBe(join(mount, 'X4_CARD_2', 'DCIM', 'Camera01', row.fileName));
      expect((await kit.stored(u, f.id)).sha256).toBe(sha256(bytes.get(row.fileName)!));
    }
    const counts = putCounts();
    for (const k of held) expect([k, counts.get(k)]).toEqual([k, 1]);
    // Every part of every file was sent (one cut off by the pull may have been sent again: storage never had it).
    for (const f of files)
      for (const n of [1, 2, 3]) expect(counts.get(`${keyOf(f.id)}#${n}`)).toBeGreaterThanOrEqual(1);
    // Done, nothing waiting; the card's lenses are random bytes, each kept with its "no readable MP4
    // header" warning (shared/capture-warnings.ts), so the finish is the one with warnings.
    expect(queueState(committedTotals(u.queue.totals())).kind).toBe('done-with-warnings');
    const kinds = u.queue.activity.list().map((a) => [a.kind, a.subject]);
    expect(kinds).toContainEqual(['card-removed', 'X4_CARD']);
    expect(kinds).toContainEqual(['card-back', 'X4_CARD']);
  }, 120_000);

  it('the wait outlives a restart: reopened with the card back under another path, the uploads resume by themselves', async () => {
    const pulled = cardOnMount(kit.work, 'media-2', 'pocket-2', 'GO3', { recordings: 1, bytes: 11 * MiB });
    const { mount, aside, card, bytes, watch: cards } = pulled;
    const u = kit.uploader('restart', { bandwidthBytesPerSecond: 4 * MiB, concurrency: 1, cards });
    const { queued } = await u.add([card.root], { structure: kit.structure(), type: 'interior' });
    const files = u.queue.filesOf(queued[0]!);
    void u.engine.drain({ wait: true });
    await untilPartsStored(u, files, 1);
    renameSync(card.root, join(aside, 'GO3'));
    await expect
      .poll(() => u.engine.summary().cardRemoved, { timeout: 30_000 })
      .toBe('Card GO3 removed: put it back to continue (1 recording waiting)');
    await u.close(); // the app quits with the card out

    renameSync(join(aside, 'GO3'), join(mount, 'GO3 (1)'));
    const v = kit.uploader('restart', { cards });
    expect(statusState(v.queue).state.kind).toBe('card-removed'); // what `status` says before anything runs
    const summary = await v.engine.drain({ wait: true, deadline: Date.now() + 60_000 });
    expect([summary.completed.length, summary.failed, summary.cardRemoved]).toEqual([2, [], null]);
    for (const f of files) {
      const row = v.queue.file(f.id)!;
      expect(row.path).toBe(join(mount, 'GO3 (1)', 'DCIM', 'Camera01', row.fileName));
      expect((await kit.stored(v, f.id)).sha256).toBe(sha256(bytes.get(row.fileName)!));
    }
  }, 120_000);
});
