// How long the host waits for the upload service's answer to a call (docs/service-process.md,
// "Deadlines"; docs/decisions/0035-service-heartbeat.md). A hung process is the heartbeat's to find
// (main/service-host/heartbeat.ts); these bound a call whose handler waits on something that never
// settles while the service itself answers on. Each is sized to the slowest honest answer of its
// channel, with room for a loaded machine; when it passes, the caller is answered with why and the
// service is told to stop that work (the call's `cancel`).
import type { Channel } from '../../shared/ipc.js';

/** Local work: a queue read or change, the settings, a card's offer, a thumbnail (ms). */
const LOCAL_CALL_MS = 30_000;

/**
 * The channels that wait longer than local work (ms): calls to the capture service or the
 * progress records service (each HTTP call bounded by main/api, with its retries); reading
 * many files on a card or a network share (inspection, queuing; both stop on cancel); the
 * operating system's eject (its own 60 s bound); and the file dialog, where a person takes their time.
 */
const CALL_DEADLINES_MS: Partial<Record<Channel, number>> = {
  'capture:settings.save': 180_000,
  'capture:settings.useLocalService': 180_000,
  'capture:designs.check': 180_000,
  'capture:designs.export': 180_000,
  'capture:progress.list': 180_000,
  'capture:progress.get': 180_000,
  'capture:progress.create': 180_000,
  'capture:progress.revise': 180_000,
  'capture:progress.signin': 180_000,
  'capture:progress.report': 180_000,
  'capture:progress.discard': 180_000,
  'capture:assets.categories': 180_000,
  'capture:assets.list': 180_000,
  'capture:files.inspect': 600_000,
  'capture:captures.register': 600_000,
  'capture:queue.edit': 600_000,
  'capture:cards.eject': 90_000,
  'capture:files.pick': 3_600_000,
};

/** The deadline of a call on `channel` (ms): its entry in CALL_DEADLINES_MS, else LOCAL_CALL_MS. */
export function callDeadlineMs(channel: Channel): number {
  return CALL_DEADLINES_MS[channel] ?? LOCAL_CALL_MS;
}

/** How long the support report may take, from the Help menu's click to its zip written (ms). */
export const REPORT_DEADLINE_MS = 120_000;

/**
 * The answer to a call whose deadline passed: what did not answer, within how long, that the
 * work was asked to stop, and what to do.
 */
export function callDeadlineMessage(channel: Channel, deadlineMs: number): string {
  return (
    `The upload service did not answer within ${seconds(deadlineMs)} (${channel}); that work was asked to stop. ` +
    'Try again; if it happens again, save a report for support (Help › Save a report for support…).'
  );
}

/** `ms` as words: `30 s`, `3 min`, `1 h`. */
function seconds(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 120_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}
