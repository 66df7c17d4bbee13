import { useShallow } from 'zustand/react/shallow';
import { WAITING_FOR } from '../../../../shared/causes.js';
import { retryTime, retryWait } from '../../../../shared/queue-state.js';
import type { QueueCapture } from '../../../../shared/ipc.js';
import { useApp } from '../../store.js';
import { registeredCaptureState } from './list-rows.js';

const CAPTURE_STATE: Record<QueueCapture['state'], string> = {
  queued: 'Waiting to be registered',
  registering: 'Registering',
  registration_unknown: 'Needs you: registration unknown',
  registered: 'Uploading', // said from its files: see registeredCaptureState
  completed: 'Completed',
  failed: 'Needs you',
  rejected: 'Needs you: refused by the service',
};

/** The colour class of what a registered capture is doing (its first word). */
const DOING_CLASS: Record<string, string> = {
  Retrying: 'retrying',
  Retry: 'retrying',
  Paused: 'paused',
  Needs: 'failed',
  Completed: 'completed',
};
/** The colour class of what a registered capture is doing: an outage's wait is coloured as a retry is. */
export const doingClass = (doing: string) =>
  Object.values(WAITING_FOR).some((w) => doing.startsWith(w)) ? 'retrying' : DOING_CLASS[doing.split(' ')[0]!];

/** A capture's structure and design by the names people gave them (ids when not named in settings). */
export function usePlaceName(structureId: string, designId: string | null): string {
  return useApp((s) => {
    const st = s.settings?.structures.find((x) => x.id === structureId);
    const design = designId ? (st?.designs.find((d) => d.id === designId)?.name ?? designId) : null;
    return `${st?.name ?? structureId}${design ? ` · ${design}` : ''}`;
  });
}

/** A capture's files summed for its line: bytes (`size`, `sent`), files `done` of `count`, and what its files are doing. */
export interface CaptureSum {
  size: number;
  sent: number;
  done: number;
  count: number;
  doing: string;
}

/**
 * A capture's files summed (cancelled files left out of the bytes), `now` (ms) for the retry
 * times it says, `outage` where part requests fail now (the headline's "Waiting for storage").
 */
export function useCaptureSum(
  id: number,
  now: number,
  outage: Parameters<typeof registeredCaptureState>[2],
): CaptureSum {
  return useApp(
    useShallow((s) => {
      let size = 0;
      let sent = 0;
      let done = 0;
      const ids = s.filesOf[id] ?? [];
      const files = [];
      for (const f of ids) {
        const file = s.files[f];
        if (!file || file.state === 'cancelled') continue;
        files.push(file);
        size += file.size;
        sent += file.bytesSent;
        if (file.state === 'completed') done++;
      }
      // A string, so the shallow comparison keeps the row still while only bytes move.
      return {
        size,
        sent,
        done,
        count: ids.length,
        doing: registeredCaptureState(files, (ms) => retryWait(ms, now), outage),
      };
    }),
  );
}

/** What a capture's line says it is doing: its retry time while not registered, its files' state once registered. */
export function captureStateText(c: QueueCapture, doing: string, now: number): string {
  return c.state === 'queued' && c.retryAt !== null
    ? `Not registered yet: trying again ${retryTime(c.retryAt, now) === 'any moment' ? 'any moment' : `at ${retryTime(c.retryAt, now)}`}`
    : c.state === 'registered'
      ? doing
      : CAPTURE_STATE[c.state];
}
