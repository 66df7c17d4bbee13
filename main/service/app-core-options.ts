import type { EventName, EventPayload, QueueTotals } from '../../shared/ipc.js';
import type { EngineEvent, EngineOptions, Logger } from '../engine/engine.js';
import type { KeyValueStore, SecretBox } from '../settings/settings.js';
import type { LocalServiceStarter } from './local-service.js';
import type { CardDeskOptions } from './card-desk.js';

/** What the desktop app's core needs from its host (the Electron shell, or a test harness). */
export interface AppCoreOptions {
  /** The app's user-data folder: the queue lives in `<dataDir>/queue`, the local service in `<dataDir>/local-service`. */
  dataDir: string;
  store: KeyValueStore;
  secrets: SecretBox;
  /** Sends an event to the renderer. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** Shows the file dialog; resolves with the chosen paths (empty when cancelled). */
  pickFiles(): Promise<string[]>;
  /**
   * Starts the local test service (main/service/local-service.ts `findLocalService`); absent where it
   * cannot be loaded (the packaged app), and then the local-test choice is not offered.
   */
  startLocalService?: LocalServiceStarter;
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
  /** Every engine event as the engine tells it (main/engine/events.ts), for the support log (main/support/log-file.ts). */
  engineEvents?(e: EngineEvent): void;
  /** Engine settings beyond the stored ones (tests shorten retry delays and the retry schedule). */
  engine?: Partial<Omit<EngineOptions, 'queue' | 'gateway'>>;
  /** How long failures are gathered into one notification (ms; default Announcer's GATHER_MS, tests shorten it). */
  gatherMs?: number;
  /** How often a queue another process holds is tried again (ms; default QUEUE_RETRY_MS, 3 s; tests shorten it). */
  queueRetryMs?: number;
  /** Where cards are looked for and how often, and the copy's test seams (main/service/card-desk.ts); default the system's mount folders. */
  cards?: Pick<CardDeskOptions, 'roots' | 'pollMs' | 'copyGate' | 'copySeams'>;
}
