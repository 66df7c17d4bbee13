// The service's side of its channel to the host, inside the service process: Electron's
// `process.parentPort` in a utility process, or the IPC channel of `child_process.fork`
// (main/service-host/spawn.ts starts it either way). The messages are main/service/protocol.ts.
import type { HostMessage, WorkerMessage } from './protocol.js';

/** A port as the service uses it: Electron's MessagePortMain in a utility process. */
export interface WindowPort {
  postMessage(message: unknown): void;
  on(event: 'close', listener: () => void): unknown;
  start(): void;
  close(): void;
}

/** The service's side of the channel, inside the service process. */
export interface HostChannel {
  post(m: WorkerMessage): void;
  /** `port`: the port a `window-port` message carried. */
  onMessage(listener: (m: HostMessage, port?: WindowPort) => void): void;
  /** Posts `last` (the `closed` message) and ends this process with code 0 once it has left. */
  end(last: WorkerMessage): void;
}

/** Electron's `process.parentPort` in a utility process. */
interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown; ports?: WindowPort[] }) => void): void;
}

/**
 * The channel to the host from inside the service process: Electron's `process.parentPort` in a
 * utility process, else the IPC channel of `child_process.fork`. Throws Error when the process was
 * started neither way (run by hand). When the host goes away (its channel disconnects) the service
 * ends too: a service without a host would hold the queue with nobody to answer.
 */
export function hostChannel(): HostChannel {
  const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (parentPort) {
    return {
      post: (m) => parentPort.postMessage(m),
      onMessage: (l) => parentPort.on('message', (e) => l(e.data as HostMessage, e.ports?.[0])),
      end: (last) => {
        parentPort.postMessage(last);
        setImmediate(() => process.exit(0));
      },
    };
  }
  if (!process.send) throw new Error('The upload service must be started by the app (no channel to it).');
  process.on('disconnect', () => process.exit(0));
  return {
    post: (m) => void process.send!(m, undefined, undefined, (err: Error | null) => void err),
    onMessage: (l) => void process.on('message', (m) => l(m as HostMessage)),
    end: (last) => {
      if (!process.connected) process.exit(0);
      process.send!(last, undefined, undefined, () => process.exit(0));
    },
  };
}
