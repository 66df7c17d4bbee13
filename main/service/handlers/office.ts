import type { OfficeDesk } from '../../office/office-desk.js';

/**
 * The office screens' IPC handlers (Progress and Assets, progress-records-interface.md): the office
 * desk (main/office/office-desk.ts) answers them over its cache and outbox.
 */
export function officeHandlers(desk: OfficeDesk): ReturnType<OfficeDesk['handlers']> {
  return desk.handlers();
}
