import { randomBytes } from 'node:crypto';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { FaultRuleInput } from '../../../e2e/service/testing.js';
import { useServiceKit } from '../../testing/kit.js';
import type { Uploader } from '../../service/uploader.js';
import type { EngineEvent } from '../engine.js';
import { REGISTRATION_LANES } from './registrar.js';
import { overnightRetrySchedule } from '../scheduling/retry-schedule.js';

// add-capture (capture-upload-interface.md §4.4) is not idempotent: these tests count the
// captures the service holds per recording, whatever the queue's disk or the service's answers do.

// The local service and queue folders come from the shared kit (main/testing/kit.ts).
const kit = useServiceKit('registrar-test');

/** An uploader on its own queue folder with short per-call retries and the engine's own durable schedule and stall timeout. */
const uploader = (name: string): Uploader =>
  kit.uploader(name, { retrySchedule: overnightRetrySchedule(), stallTimeoutMs: 30_000 });

/**
 * `n` recordings named after `name`, one capture each: 2 GiB, sparse but for random first bytes,
 * so that registering one writes hundreds of part rows (nothing here uploads them).
 */
function recordings(name: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const path = join(kit.work, `${name}-${i + 1}.mp4`);
    writeFileSync(path, randomBytes(4096));
    truncateSync(path, 2 * 1024 ** 3);
    return path;
  });
}

const fault = (rule: FaultRuleInput) => kit.fault(rule);
/** The captures the service holds whose request names a file starting with `name`. */
const atService = (name: string) =>
  Object.values(kit.svc.store.state.captures).filter((c) => JSON.stringify(c.request).includes(`${name}-`));
const warnings = (u: Uploader): string[] => {
  const seen: string[] = [];
  u.engine.on((e: EngineEvent) => e.type === 'warning' && seen.push(e.message));
  return seen;
};

describe('a full disk while registering', () => {
  it('stops registering at once with one sentence naming the folder and the space needed: one capture per lane at the service, not one per recording', async () => {
    const u = uploader('full-disk');
    const paths = recordings('fulldisk', 3);
    await u.enqueue(paths, { structure: kit.svc.info.structures[0]!, type: 'interior' });
    // The queue's file may not grow any more (it has no free pages): saving the first
    // registration's 410 part rows fails with SQLITE_FULL, as on a disk that filled up.
    const { db } = u.queue;
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);

    const summary = await u.engine.drain();

    // The requests already in flight (one per lane) were answered; nothing was sent after.
    expect(atService('fulldisk')).toHaveLength(REGISTRATION_LANES);
    expect(summary.fatal).toMatch(
      new RegExp(
        `^The disk holding the upload queue's folder ${join(kit.work, 'full-disk').replace(/[/\\]/g, '.')} is full \\(.+ free\\): free at least \\d+ MB there, then run again; nothing queued was lost\\.$`,
      ),
    );
    // The registrations in flight could not be recorded: they are not queued to be sent again.
    expect(u.queue.captures().map((c) => c.state)).toEqual(['registering', 'registering', 'queued']);
  });

  it('an answer the queue cannot record even with the reserve released is held in memory and recorded once there is room: never "registration unknown"', async () => {
    const u = uploader('held-answer');
    const said = warnings(u);
    await u.enqueue(recordings('held', 2), { structure: kit.svc.info.structures[0]!, type: 'interior' });
    // SQLite's own page limit: deleting the reserve file beside queue.db gives it no room.
    const { db } = u.queue;
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages}`);

    const summary = await u.engine.drain();
    expect(summary.fatal).toMatch(/is full/);
    // Both lanes' requests were answered; neither answer could be recorded.
    expect(atService('held')).toHaveLength(2);
    const accepted = atService('held').map((c) => c.captureId);
    for (const id of accepted)
      expect(
        said.some(
          (m) => m.includes(`as ${id}, but the upload queue cannot record it yet`) && m.includes('kept in memory'),
        ),
      ).toBe(true);
    expect(u.queue.captures().map((c) => c.state)).toEqual(['registering', 'registering']);

    // Room again: the answers held in memory are recorded within a few seconds, as the platform gave them.
    db.pragma(`max_page_count = ${pages * 1000}`);
    await vi.waitFor(() => expect(u.queue.captures().map((c) => c.state)).toEqual(['registered', 'registered']), {
      timeout: 10_000,
    });
    expect(
      u.queue
        .captures()
        .map((c) => c.captureId)
        .sort(),
    ).toEqual([...accepted].sort());
    for (const c of u.queue.captures()) expect(u.queue.filesOf(c.id).map((f) => f.state)).toEqual(['pending']);
    expect(atService('held')).toHaveLength(2);
  });
});

describe('add-capture answers that may come after the service acted', () => {
  it.each([500, 502, 504])(
    '%i after acting: one capture at the service, the local one registration_unknown, one message for the batch',
    async (status) => {
      const u = uploader(`after-acting-${status}`);
      const said = warnings(u);
      await fault({
        target: 'gateway',
        operation: 'add-capture',
        times: 0,
        action: { type: 'statusAfterActing', status },
      });
      const { queued } = await u.add(recordings(`acted${status}`, 2), {
        structure: kit.svc.info.structures[0]!,
        type: 'interior',
      });

      expect(u.queue.captures().map((c) => c.state)).toEqual(['registration_unknown', 'registration_unknown']);
      expect(atService(`acted${status}`)).toHaveLength(2); // each sent once, never again
      const summary = await u.engine.drain();
      expect(summary.needsAttention.map((c) => c.id)).toEqual(queued);
      expect(atService(`acted${status}`)).toHaveLength(2);
      const notices = said.filter((m) => /registered/.test(m));
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(
        new RegExp(`^2 capture\\(s\\) may have been registered although the service answered ${status}`),
      );
      expect(notices[0]).toContain(`capture ${queued[0]} "acted${status}-1.mp4"`);
      expect(notices[0]).toMatch(/resolve CAPTURE --register-again.*resolve CAPTURE --drop/);
    },
  );

  it.each([
    [429, '120', 120_000],
    [503, new Date(Date.now() + 300_000).toUTCString(), 300_000],
  ])(
    '%i (not processed): queued, sent again no sooner than Retry-After %s asks, and the client sent it once',
    async (status, retryAfter, waitMs) => {
      const u = uploader(`not-processed-${status}`);
      await fault({ target: 'gateway', operation: 'add-capture', action: { type: 'status', status, retryAfter } });
      const before = Date.now();
      await u.add(recordings(`np${status}`, 1), { structure: kit.svc.info.structures[0]!, type: 'interior' });

      const [c] = u.queue.captures();
      expect(c!.state).toBe('queued');
      // Retry-After as delay-seconds counts from the answer; as an HTTP-date it names the time itself
      // (made when the test file loaded, whole seconds).
      const asked = /^\d+$/.test(retryAfter) ? before + waitMs : Date.parse(retryAfter);
      // Never sooner than asked (2 s for the test's own steps), and spread past it by up to half
      // the wait, so a fleet told the same time does not come back together.
      const waited = asked - before;
      expect(c!.nextAttemptAt!).toBeGreaterThan(asked - 2000);
      expect(c!.nextAttemptAt!).toBeLessThan(asked + waited / 2 + 2000);
      const rules = ((await (await kit.svc.admin('GET', '/faults')).json()) as { rules: { seen: number }[] }).rules;
      expect(rules[0]!.seen).toBe(1); // no retry inside the client
      expect(atService(`np${status}`)).toHaveLength(0);
    },
  );
});
