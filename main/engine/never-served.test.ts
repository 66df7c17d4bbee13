import { describe, expect, it } from 'vitest';
import { MiB, useServiceKit } from '../testing/kit.js';

// 501 Not Implemented and 505 HTTP Version Not Supported (RFC 9110 §15.6.2, §15.6.6) say the
// request will never be served there: retried per request as §7 retries every 5xx (§8's
// retries), by the part sender and the gateway client alike, and then the file needs a person.
// It is not left on the durable schedule, which would send it every 15 minutes for ever.

const kit = useServiceKit('never-served');
const fast = (retries: number) => ({ retries, delayMs: () => 5 });

describe('an answer that says the request is never served', () => {
  it.each([501, 505])(
    'storage %i on every part PUT: 1 + partRetry PUTs, then the file fails, off the schedule',
    async (status) => {
      const file = kit.file(`put${status}.mp4`, MiB);
      await kit.fault({ target: 'storage', operation: 'UploadPart', times: 0, action: { type: 'status', status } });
      const u = kit.uploader(`put${status}`, { partRetry: fast(3), apiRetry: fast(2) });
      const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
      const [f] = u.queue.filesOf(queued[0]!);

      const summary = await u.engine.drain();

      expect(await kit.fired(), 'PUTs answered').toEqual([4]);
      expect(summary.failed.map((x) => x.id)).toEqual([f!.id]);
      const row = u.queue.file(f!.id)!;
      expect([row.state, row.transient, row.nextAttemptAt]).toEqual(['failed', false, null]);
      expect(row.error).toMatch(new RegExp(`HTTP ${status} on PUT`));
    },
  );

  it.each([501, 505])(
    'the gateway %i on presign-missing: 1 + apiRetry calls, then the file fails, off the schedule',
    async (status) => {
      const file = kit.file(`presign${status}.mp4`, MiB);
      await kit.fault({
        target: 'gateway',
        operation: 'presign-missing',
        times: 0,
        action: { type: 'status', status },
      });
      const u = kit.uploader(`presign${status}`, { partRetry: fast(3), apiRetry: fast(2) });
      const { queued } = await u.add([file.path], { structure: kit.structure(), type: 'interior' });
      const [f] = u.queue.filesOf(queued[0]!);

      const summary = await u.engine.drain();

      expect(await kit.fired(), 'presign calls answered').toEqual([3]);
      expect(summary.failed.map((x) => x.id)).toEqual([f!.id]);
      const row = u.queue.file(f!.id)!;
      expect([row.state, row.transient, row.nextAttemptAt]).toEqual(['failed', false, null]);
      expect(row.error).toMatch(new RegExp(`HTTP ${status} on POST`));
    },
  );
});
