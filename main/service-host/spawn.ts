// Where the upload service's process comes from, and the one place that decides it: Electron's
// `utilityProcess` in the app (the shell hands it in: only main/electron/ imports `electron`), or
// `child_process.fork` under plain Node (tests, benches, the e2e harness). Both carry structured-
// clone messages (fork with `serialization: 'advanced'`), so main/service/protocol.ts is the same
// either way, and a native crash of the service ends only its process (docs/decisions/0004-service-utility-process.md).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HostMessage, WorkerMessage } from '../service/protocol.js';

/** How a service process ended: its exit code, or the signal that killed it (`SIGKILL`, `SIGSEGV`). */
export interface ServiceExit {
  code: number | null;
  signal: string | null;
}

/** The upload service's process as the host sees it, whichever way it was started. */
export interface ServiceProcess {
  /** The operating system's process id (undefined until it has started). */
  readonly pid: number | undefined;
  /** Which kind of process this is. */
  readonly kind: 'utility' | 'fork';
  post(m: HostMessage): void;
  /**
   * Hands the window's port (Electron's MessagePortMain) to the service (`window-port`), in a
   * utility process only: answers false under fork, where a port cannot cross processes and the
   * host relays the events (docs/decisions/0029-service-port.md).
   */
  givePort(port: unknown): boolean;
  onMessage(listener: (m: WorkerMessage) => void): void;
  /** Called once when the process has ended, for any reason. */
  onExit(listener: (exit: ServiceExit) => void): void;
  /**
   * Sends `signal` (default SIGTERM). A utility process is ended Electron's way (SIGTERM, which
   * it can handle) but for SIGKILL, sent by its process id: the one a stopped or hung process cannot hold off.
   */
  kill(signal?: NodeJS.Signals): void;
}

/** The part of a child made by Electron's `utilityProcess.fork` the host uses. */
export interface UtilityChild {
  readonly pid: number | undefined;
  postMessage(message: unknown, transfer?: unknown[]): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  kill(): boolean;
}

/** Electron's `utilityProcess` module, structurally (the shell passes the real one). */
export interface UtilityProcessApi {
  fork(
    modulePath: string,
    args?: string[],
    options?: { serviceName?: string; stdio?: 'inherit' | 'pipe' | 'ignore' },
  ): UtilityChild;
}

/**
 * Node's options for a service entry: for TypeScript source (tests, `tsx`), tsx's loader and the
 * "source" export condition, so the local service package loads from its source as vitest
 * resolves it, with no build of it; none for the bundle.
 */
export const sourceExecArgv = (entry: string): string[] =>
  entry.endsWith('.ts') ? ['--import', 'tsx', '--conditions=source'] : [];

/** The service's entry from TypeScript source (tests, `tsx`): run by Node with tsx's loader. */
export const SOURCE_ENTRY = fileURLToPath(new URL('../service/worker.ts', import.meta.url));

/**
 * Starts the service module `entry` (a file path: the bundle's `service-worker.js` in the app,
 * {@link SOURCE_ENTRY} from source) in a process of its own: through `utility` when given
 * (Electron's utilityProcess), else `child_process.fork` with the structured-clone channel and,
 * for a `.ts` entry, tsx's loader. Throws what fork throws for an entry that cannot be started.
 */
export function spawnService(entry: string, utility?: UtilityProcessApi): ServiceProcess {
  if (utility) {
    const child = utility.fork(entry, [], { serviceName: 'Capture Uploader service', stdio: 'inherit' });
    return {
      kind: 'utility',
      get pid() {
        return child.pid;
      },
      post: (m) => child.postMessage(m),
      givePort: (port) => {
        child.postMessage({ type: 'window-port' } satisfies HostMessage, [port]);
        return true;
      },
      onMessage: (l) => void child.on('message', (m) => l(m as WorkerMessage)),
      // A utility process reports only a code; a native crash is a code too (no signal is said).
      onExit: (l) => void child.on('exit', (code) => l({ code, signal: null })),
      // Electron's kill() is SIGTERM, which a stopped process (SIGSTOP) holds until it runs again:
      // a hung service is ended by its process id instead (docs/decisions/0035-service-heartbeat.md).
      kill: (signal) => {
        if (signal === 'SIGKILL' && child.pid !== undefined) {
          try {
            process.kill(child.pid, 'SIGKILL');
            return;
          } catch {
            // Gone already, or not ours to signal: Electron's own way below.
          }
        }
        child.kill();
      },
    };
  }
  const child = fork(entry, [], {
    execArgv: sourceExecArgv(entry),
    serialization: 'advanced',
    stdio: 'inherit',
  });
  return {
    kind: 'fork',
    get pid() {
      return child.pid;
    },
    // A message to a process that just died is lost, as its answer would be: the exit fails its calls.
    post: (m) => {
      if (child.connected) child.send(m, (err) => void err);
    },
    // No port crosses a fork's channel: the host relays the window's events.
    givePort: () => false,
    onMessage: (l) => void child.on('message', (m) => l(m as WorkerMessage)),
    onExit: (l) => void child.once('exit', (code, signal) => l({ code, signal })),
    kill: (signal = 'SIGTERM') => void child.kill(signal),
  };
}
