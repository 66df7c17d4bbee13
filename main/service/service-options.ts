import type { EventName, EventPayload, QueueTotals } from '../../shared/ipc.js';
import type { Logger } from '../engine/engine.js';
import type { KeyValueStore, SecretBox } from '../settings/settings.js';
import type { CardWatchOptions } from './card-imports.js';

/**
 * The upload service's duties toward its host, listed once. Each side takes its part of them:
 * AppCoreOptions (app-core-options.ts) the core in the service's process, with engine options
 * as functions; ServiceHostOptions (host.ts) what the shell gives the host, which answers the
 * functions here by messages; ServiceStart (protocol.ts) the plain data of them that crosses to
 * the service's process at its start.
 */
export interface ServiceOptions {
  /** The app's user-data folder: the queue lives in `<dataDir>/queue`, the local service in `<dataDir>/local-service`. */
  dataDir: string;
  /**
   * The support log's folder (Electron's `app.getPath('logs')`; main/support/log-file.ts): the
   * service writes its engine events there, and the report reads it. Absent: `<dataDir>/logs`.
   */
  logDir?: string;
  /** The settings, read and written by key; values are JSON (electron-store in the app). */
  store: KeyValueStore;
  /** Seals and unseals secrets (safeStorage in the app). */
  secrets: SecretBox;
  /** Sends an event to the renderer. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** Shows the file dialog; resolves with the chosen paths (empty when cancelled). */
  pickFiles(): Promise<string[]>;
  /** A desktop notification: what needs a person (gathered, see Announcer), the queue finished, uploads stopped. */
  notify?(title: string, body: string): void;
  /**
   * Called with true while the queue has work (hold a power-save blocker), false when idle.
   * Answers whether the computer is now kept awake, which the queue screen says, at once or, from
   * another process (main/service/worker.ts), as a promise (of which only the latest counts).
   */
  busy?(working: boolean): boolean | void | Promise<boolean | void>;
  /** Called with the queue's totals as it opens and as they change (at most ten a second), for the taskbar's and tray's progress and the default of "start at login". */
  totals?(totals: QueueTotals): void;
  log?: Logger;
  /** How long failures are gathered into one notification (ms; default Announcer's GATHER_MS, tests shorten it). */
  gatherMs?: number;
  /** Where cards are looked for and how often (main/service/card-imports.ts); default the system's mount folders. */
  cards?: CardWatchOptions;
}
