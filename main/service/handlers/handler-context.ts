import type { EventName, EventPayload, NamedStructure, QueueView, SettingsView } from '../../../shared/ipc.js';
import type { GatewayConfig } from '../../api/gateway.js';
import type { UploadLimits } from '../../engine/scheduling/upload-limits.js';
import type { SettingsRepository } from '../../settings/settings.js';
import type { Uploader } from '../uploader.js';

/**
 * What the IPC handlers of each screen (this folder) use of the app core (main/service/app-core.ts):
 * AppCore builds one over its own state, so the handlers hold no state of their own and the core
 * keeps the wiring (opening and closing the queue, the drain loop, events).
 */
export interface HandlerContext {
  readonly settings: SettingsRepository;
  readonly limits: UploadLimits;
  /** The uploader in use, or undefined before the app is set up. */
  uploader(): Uploader | undefined;
  /** The uploader in use; throws Error saying what to set up when there is none. */
  requireUploader(): Uploader;
  /** Starts a drain (or one more after the running one). */
  startDrain(): void;
  /** The project the queue uploads to ('' before the app is set up). */
  projectId(): string;
  /** The stored settings as the renderer sees them. */
  view(): SettingsView;
  /** The current queue with live progress. */
  queueView(): QueueView;
  /** Sends an event of the IPC contract to the window. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** Tells the live queue these file ids were added, so their rows are sent. */
  touched(fileIds: number[]): void;
  /**
   * The verified copy of a file on a card imported this session (absolute path), or undefined:
   * a recording placed after its copy verified is queued at the copy.
   */
  copyOf?(path: string): string | undefined;
}

/** What the Settings screen's handlers use beyond {@link HandlerContext}: opening the queue on a service. */
export interface SettingsContext extends HandlerContext {
  /** Whether the local test service is offered in this installation. */
  readonly localServiceAvailable: boolean;
  /** Stops uploads and closes the queue (stored parts kept). */
  closeUploader(): Promise<void>;
  /** Closes the local service, if one was started. */
  closeLocal(): Promise<void>;
  /** Opens the queue on a configured service, with the stored settings (shared/settings-table.ts) as its engine's options. */
  openWith(config: GatewayConfig): void;
  /** Starts (or reuses) the local service and opens the queue on it, as openWith; throws when it is not offered or fails to start. */
  openLocal(): Promise<void>;
  /** The local service's structures with their names, as a real project hands them out of band. */
  localStructures(): NamedStructure[];
  /**
   * Runs `open` (openWith, openLocal); when another process holds the queue, answers at once and
   * the app waits for it as at start: the service's status says who holds it, and the queue is
   * opened with the stored settings once it is free (tried every few seconds). Other errors are thrown.
   */
  openOrWait(open: () => void | Promise<void>): Promise<void>;
  /** The local service's project name, handed out of band like the structures' names ('' before it started). */
  localProjectName(): string;
}
