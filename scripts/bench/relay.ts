// The relay's cost in the main process for one 10,000-row queue event (`capture:event.rows`, what
// "Pause all" on 10,000 files sends): the service process posts it, the main process receives it
// (deserializes the structured clone on its main thread) and sends it on to the window (Electron
// serializes it again for webContents.send; v8.serialize stands in for that here, with no window).
// Measured on this thread as the event loop's busy time per message, so it is the main thread's
// share only. Run through the same spawn.ts fork the tests use. Figures, not assertions. In the app
// the rows go to the window on its own port (docs/decisions/0029-service-port.md): the last figure is
// what the main thread still receives of such an event there.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { serialize } from 'node:v8';
import type { EventPayload } from '../../shared/ipc.js';
import type { Figure } from './figures.js';
import { spawnService } from '../../main/service-host/spawn.js';
import type { WorkerMessage } from '../../main/service/protocol.js';

/** A `capture:event.rows` payload of `n` file rows in `n / 2` captures, the fields filled as a drain fills them. */
function rowsPayload(n: number): EventPayload<'capture:event.rows'> {
  const files = Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    captureRow: Math.floor(i / 2) + 1,
    fileName: `VID_20261123_${String(i).padStart(6, '0')}_00_${String(i % 1000).padStart(3, '0')}.insv`,
    path: `/media/site/DCIM/Camera01/VID_20261123_${String(i).padStart(6, '0')}_00_${String(i % 1000).padStart(3, '0')}.insv`,
    size: 4096,
    state: 'paused' as const,
    error: null,
    bytesSent: 0,
    partsDone: 0,
    partsTotal: 1,
    bytesPerSecond: 0,
    etaSeconds: null,
    retryAt: null,
    attempts: 0,
  }));
  const captures = Array.from({ length: n / 2 }, (_, i) => ({
    id: i + 1,
    label: `Walk ${i + 1}`,
    state: 'registered',
    error: null,
    retryAt: null,
    captureId: `cap-${i + 1}`,
    structure: 'st-1',
    design: null,
    type: 'interior' as const,
    capturedAt: '2026-11-23T08:00:00+01:00',
  }));
  const totals = {
    files: n,
    captures: n / 2,
    completed: 0,
    uploading: 0,
    queued: 0,
    retrying: 0,
    paused: n,
    failed: 0,
    cancelled: 0,
    needYou: 0,
    bytesTotal: n * 4096,
    bytesDone: 0,
    bytesRemaining: n * 4096,
    bytesPerSecond: 0,
  };
  return {
    files,
    captures,
    removed: { captures: [], files: [] },
    totals,
    blocked: null,
    hold: null,
  } as unknown as EventPayload<'capture:event.rows'>;
}

/**
 * Forks a stand-in service that posts `messages` rows events of `rows` rows each, one at a time
 * as the host takes them, and measures this thread's busy time per message (ms): receiving it,
 * and receiving plus serializing it again for the window. `work` is a folder for the stand-in's module.
 */
export async function relayFigures(work: string, rows = 10_000, messages = 20): Promise<Figure[]> {
  const entry = join(work, 'relay-sender.mjs');
  // The payload is made in the child, so only the channel's work is on this thread.
  writeFileSync(
    entry,
    `const payload = ${JSON.stringify(rowsPayload(rows))};
process.on('message', (m) => { if (m.type !== 'call') process.exit(0); else if (m.args === 'stops') process.send({ type: 'stops', hold: payload.hold, blocked: payload.blocked }); else process.send({ type: 'event', event: 'capture:event.rows', payload }); });
process.send({ type: 'started', queueError: null });`,
  );
  const child = spawnService(entry);
  let received: (m: WorkerMessage) => void = () => {};
  child.onMessage((m) => received(m));
  const next = () => new Promise<WorkerMessage>((resolve) => (received = resolve));
  await next(); // started
  // `stops`: what the main thread receives of the same event in the app, the rows going to the
  // window on its port (docs/decisions/0029-service-port.md).
  const measure = async (forward: boolean, stops = false) => {
    let busy = 0;
    for (let i = 0; i < messages; i++) {
      const arrived = next();
      // Idle while the child serializes and sends; busy from here on is this thread's receiving.
      await new Promise((r) => setTimeout(r, 50));
      const before = performance.eventLoopUtilization();
      child.post({ type: 'call', seq: i, channel: 'capture:queue.list', args: stops ? 'stops' : undefined });
      const m = await arrived;
      if (forward && m.type === 'event') serialize(m.payload);
      busy += performance.eventLoopUtilization(before).active;
    }
    return busy / messages;
  };
  await measure(true); // warm-up
  const receive = await measure(false);
  const relay = await measure(true);
  const ported = await measure(false, true);
  child.post({ type: 'close' });
  const n = rows.toLocaleString('en');
  return [
    {
      name: `relay: receive one ${n}-row event (main thread)`,
      values: [receive],
      unit: 'ms',
      better: 'lower',
      digits: 1,
      note: 'structured clone from the service process',
    },
    {
      name: `relay: receive + send on one ${n}-row event (main thread)`,
      values: [relay],
      unit: 'ms',
      better: 'lower',
      digits: 1,
      note: 'v8.serialize stands in for webContents.send',
    },
    {
      name: `port: the main thread's part of one ${n}-row event (main thread)`,
      values: [ported],
      unit: 'ms',
      better: 'lower',
      digits: 2,
      note: "the app: rows go to the window on its port; the host gets the tray's stops only",
    },
  ];
}
