import type { OfficeSync } from '../../office/office-sync.js';

/**
 * The office screens' IPC handlers (Progress and Assets, progress-records-interface.md): the office
 * officeSync (main/office/office-sync.ts) answers them over its cache and outbox.
 */
export function officeHandlers(officeSync: OfficeSync): ReturnType<OfficeSync['handlers']> {
  return officeSync.handlers();
}
