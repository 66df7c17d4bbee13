import type { EngineEvent, EngineOptions } from '../engine/engine.js';
import type { LocalServiceStarter } from './local-service.js';
import type { CardImportsOptions } from './card-imports.js';
import type { ServiceOptions } from './service-options.js';

/**
 * What the desktop app's core needs from its host (the Electron shell, or a test harness): the
 * service's duties (ServiceOptions) but the log folder, which the service's process handles
 * itself, with engine options as the engine takes them and the copy's test seams.
 */
export interface AppCoreOptions extends Omit<ServiceOptions, 'logDir' | 'cards'> {
  /**
   * Starts the local test service (main/service/local-service.ts `findLocalService`); absent where it
   * cannot be loaded (the packaged app), and then the local-test choice is not offered.
   */
  startLocalService?: LocalServiceStarter;
  /** Every engine event as the engine tells it (main/engine/events.ts), for the support log (main/support/log-file.ts). */
  engineEvents?(e: EngineEvent): void;
  /**
   * Engine options of the host's own (tests shorten retry delays, the retry schedule, the stall
   * timeout). The engine's options are applied in one order: the settings table's defaults
   * (shared/settings-table.ts), then the stored settings, then these over both, so a test's 5 s
   * stall timeout holds whatever the store says.
   */
  engine?: Partial<Omit<EngineOptions, 'queue' | 'gateway'>>;
  /** How often a queue another process holds is tried again (ms; default QUEUE_RETRY_MS, 3 s; tests shorten it). */
  queueRetryMs?: number;
  /** ServiceOptions' `cards` and the copy's test seams (main/service/card-imports.ts). */
  cards?: Pick<CardImportsOptions, 'roots' | 'pollMs' | 'copyGate' | 'copySeams'>;
}
