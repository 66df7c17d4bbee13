import { describe, expect, it } from 'vitest';
import { MiB, useServiceKit } from '../testing/kit.js';

// complete-batch (§4.7) answered 200 with no body, or 204, after the service finalized the file:
// the answer says nothing, storage holds the right bytes. Before the file is failed, the status
// reads settle it: the upload's (§4.9), else the capture's (§4.8). Complete there is completed
// here; an answer unread where the service did not finalize is reported again, never counted done.

const kit = useServiceKit('empty-finalize');

async function queued(name: string, sizes: number[]) {
  const files = sizes.map((size, i) => kit.file(`${name}-${i}.mp4`, size));
  const u = kit.uploader(name);
  const { queued } = await u.add(
    files.map((f) => f.path),
    { structure: kit.structure(), type: 'interior' },
  );
  return { u, files, rows: u.queue.filesOf(queued[0]!), captureRow: queued[0]! };
}

describe('an empty answer to complete-batch after the service finalized', () => {
  it.each([
    [200, 'ok'],
    [204, 'ok'],
    [200, 404],
    [204, 405],
  ] as const)(
    '%i with no body (the upload status read %s): completed, the object byte for byte',
    async (status, statusRead) => {
      await kit.svc.admin('PUT', '/settings', { statusRead });
      await kit.fault({
        target: 'gateway',
        operation: 'complete-batch',
        times: 0,
        action: { type: 'emptyAfterActing', status },
      });
      const { u, files, rows, captureRow } = await queued(`empty${status}-${statusRead}`, [MiB + 7]);

      const summary = await u.engine.drain();

      expect(summary.failed.map((f) => f.error)).toEqual([]);
      expect(summary.completed.map((f) => f.id)).toEqual([rows[0]!.id]);
      expect(u.queue.file(rows[0]!.id)!.state).toBe('completed');
      expect(u.queue.capture(captureRow)!.state).toBe('completed');
      expect((await kit.stored(u, rows[0]!.id)).sha256).toBe(files[0]!.sha256);
      expect(kit.svc.store.state.uploads[rows[0]!.uploadId!]!.status).toBe('completed');
    },
  );

  it('an unreadable answer where the service did not act: reported again, completed only once the service finalized', async () => {
    // The first complete-batch is answered with a word that is not the record, and nothing is done.
    await kit.fault({
      target: 'gateway',
      operation: 'complete-batch',
      times: 1,
      action: { type: 'json', status: 200, body: 'done' },
    });
    const { u, files, rows } = await queued('unread', [MiB]);
    const upload = rows[0]!.uploadId!;

    const summary = await u.engine.drain();

    expect(summary.completed.map((f) => f.id)).toEqual([rows[0]!.id]);
    expect(await kit.fired()).toEqual([1]);
    // Completed here because the service finalized it (a second complete-batch), not on the unread answer.
    expect(kit.svc.store.state.uploads[upload]!.status).toBe('completed');
    expect((await kit.stored(u, rows[0]!.id)).sha256).toBe(files[0]!.sha256);
  });
});
