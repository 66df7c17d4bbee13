import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ImportView } from '../../shared/ipc.js';
import { writeFakeCard } from '../card/fake-card.js';
import { runCardImport } from './card-import.js';
import type { OffloadResult } from './offload.js';

const work = mkdtempSync(join(tmpdir(), 'card-import-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const sha256 = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

describe('runCardImport', () => {
  it('reports each file waiting, copying and verified, the recordings as they verify, and the card safe to remove at the end', async () => {
    const card = writeFakeCard(join(work, 'CARD_A'), { recordings: 3, bytes: 3 * 1024 * 1024 + 5 });
    // A clock 0.7 s on at each look, whatever the machine's speed.
    let tick = 0;
    const views: ImportView[] = [];
    const recorded: OffloadResult[] = [];
    const last = await runCardImport({
      id: 7,
      root: card.root,
      library: join(work, 'lib-a'),
      onUpdate: (v) => views.push(v),
      journal: { begin: () => {}, file: () => {}, interrupt: () => {}, finish: (r) => void recorded.push(r) },
      throttleMs: 0,
      clock: () => (tick += 700),
    });

    expect(last.phase).toBe('done');
    expect(last.safeToRemove).toBe(true);
    expect(last.error).toBeNull();
    expect(last.files.map((f) => f.source).sort()).toEqual([...card.recordings].sort());
    expect(last.files.every((f) => f.state === 'verified' && f.bytesDone === f.size)).toBe(true);
    expect(last.bytesDone).toBe(last.bytesTotal);
    expect(last.bytesTotal).toBe(3 * 2 * (3 * 1024 * 1024 + 5));
    // Every copy is the card's file byte for byte, and every copy was offered once.
    expect(last.verifiedCopies).toHaveLength(6);
    for (const copy of last.verifiedCopies) {
      const source = last.files.find((f) => copy.endsWith(f.name))!.source;
      expect(sha256(copy)).toBe(sha256(source));
    }
    // The first view lists every file waiting; later ones show a file copying, and recordings
    // offered before the whole card was done.
    const planned = views.find((v) => v.files.length > 0)!;
    expect(planned.files.every((f) => f.state === 'waiting')).toBe(true);
    expect(views.some((v) => v.files.some((f) => f.state === 'copying'))).toBe(true);
    expect(views.some((v) => v.phase === 'copying' && v.verifiedCopies.length === 2)).toBe(true);
    expect(views.filter((v) => v.safeToRemove).every((v) => v.phase === 'done')).toBe(true);
    // The views carry the copy's rate and, once a second passed on its clock, the time left.
    const moving = views.filter((v) => v.phase === 'copying' && v.bytesDone > 0);
    expect(moving.length).toBeGreaterThan(0);
    expect(moving.every((v) => v.bytesPerSecond > 0)).toBe(true);
    expect(moving.some((v) => v.secondsLeft !== null && v.secondsLeft > 0)).toBe(true);
    expect(last.secondsLeft).toBe(0);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.verified).toBe(true);
    expect(last.mhlPath).toBe(recorded[0]!.mhlPath);
    expect(last.reportPath).toBe(recorded[0]!.reportPath);
    expect(readFileSync(last.reportPath!, 'utf8')).toContain('Verified: 6 files of 3 recordings');
  });

  it('sends at most one view per throttle while the card copies, whatever changed, and the last one at once', async () => {
    // 40 recordings: 80 files starting and verifying, 81 other files, a recording verified 40 times.
    const card = writeFakeCard(join(work, 'CARD_T'), { recordings: 40 });
    const sent: { at: number; view: ImportView }[] = [];
    const last = await runCardImport({
      id: 3,
      root: card.root,
      library: join(work, 'lib-t'),
      onUpdate: (view) => sent.push({ at: Date.now(), view }),
      throttleMs: 50,
      wholeCard: true,
    });
    expect(last.safeToRemove).toBe(true);
    expect(sent.at(-1)!.view).toEqual(last);
    // Between two views while copying, the throttle (setTimeout waits that long, give or take the
    // wall clock's millisecond against the timers' own); only the end comes at once.
    const gaps = sent.slice(1, -1).map((s, i) => s.at - sent[i]!.at);
    expect(gaps.filter((g) => g < 45)).toEqual([]);
    expect(sent.slice(0, -1).every((s) => s.view.phase === 'copying')).toBe(true);
  });

  it('names a file that failed verification twice, keeps its recording out of the copies offered, and never says safe to remove', async () => {
    const card = writeFakeCard(join(work, 'CARD_B'), { recordings: 2 });
    const bad = card.recordings[1]!.split('/').pop()!;
    const last = await runCardImport({
      id: 1,
      root: card.root,
      library: join(work, 'lib-b'),
      onUpdate: () => {},
      throttleMs: 0,
      // Every copy of that one file is damaged on its way to the disk, both times.
      afterWrite: async (partial, dest) => {
        if (dest.endsWith(`/${bad}`)) writeFileSync(partial, 'damaged');
      },
    });
    expect(last.phase).toBe('done');
    expect(last.safeToRemove).toBe(false);
    const failed = last.files.filter((f) => f.state === 'failed');
    expect(failed.map((f) => f.name)).toEqual([bad]);
    expect(failed[0]!.error).toContain(card.recordings[1]!);
    expect(failed[0]!.error).toContain('differs from the card');
    // Its recording's other lens verified, but a recording goes up whole or not at all.
    expect(last.verifiedCopies.map((p) => p.split('/').pop())).toEqual(
      [card.recordings[2]!, card.recordings[3]!].map((p) => p.split('/').pop()),
    );
  });

  it('stopped with one lens of a recording verified and its other lens not: that file is said verified and kept, as it is on disk', async () => {
    // Two lanes copy a recording's two lenses side by side; the stop may come between the two.
    const card = writeFakeCard(join(work, 'CARD_S'), { recordings: 2, bytes: 256 * 1024 });
    const [first, second] = card.recordings as [string, string];
    const stop = new AbortController();
    const library = join(work, 'lib-s');
    const last = await runCardImport({
      id: 4,
      root: card.root,
      library,
      onUpdate: () => {},
      throttleMs: 0,
      signal: stop.signal,
      journal: {
        begin: () => {},
        // The first lens is recorded verified; the stop comes before its other lens is checked.
        file: (f) => void (f.source === first && stop.abort(new Error('stopped'))),
        interrupt: () => {},
        finish: () => {},
      },
      // The other lens's copy waits until the stop, so it is caught copying.
      afterWrite: async (_partial, dest) => {
        if (dest.endsWith(`/${second.split('/').pop()}`))
          await new Promise((r) => (stop.signal.aborted ? r(0) : stop.signal.addEventListener('abort', r)));
      },
    });
    expect(last.phase).toBe('failed');
    const row = (p: string) => last.files.find((f) => f.source === p)!;
    expect(row(first).state).toBe('verified');
    expect(row(first).bytesDone).toBe(256 * 1024);
    expect(row(second).state).toBe('waiting');
    const onDisk = (readdirSync(library, { recursive: true }) as string[]).filter((p) => p.endsWith('.insv'));
    expect(onDisk.map((p) => p.split('/').pop())).toEqual([first.split('/').pop()]);
    // A recording goes up whole or not at all: the lone lens is kept, not offered.
    expect(last.verifiedCopies).toEqual([]);
    expect(last.error).toMatch(/^Import stopped: 1 file verified and kept in .*; nothing copied for 3 files/);
  });

  it('stops before copying when the library has no room, saying how much is needed and where to choose another folder', async () => {
    const card = writeFakeCard(join(work, 'CARD_C'), { recordings: 1 });
    const last = await runCardImport({
      id: 2,
      root: card.root,
      library: join(work, 'lib-c'),
      onUpdate: () => {},
      freeBytes: async () => 1000,
    });
    expect(last.phase).toBe('failed');
    expect(last.safeToRemove).toBe(false);
    expect(last.error).toMatch(
      /^Not enough free space in .*lib-c: the recordings need 4\.0 KiB, 1000 B are free\. Free some space, or choose another library folder in Settings\.$/,
    );
    expect(last.verifiedCopies).toEqual([]);
  });
});
