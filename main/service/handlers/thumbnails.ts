import type { IpcHandlers } from '../../ipc/dispatch.js';
import type { ThumbnailDesk } from '../thumbnail-desk.js';

/**
 * The thumbnails' IPC handlers (shared/ipc/thumbnails.ts, issue 19 #6), over the service's
 * ThumbnailDesk. Errors are thrown as Error with a message for the screen.
 */
export function thumbnailHandlers(desk: ThumbnailDesk): Pick<IpcHandlers, 'capture:thumbnails.get' | 'capture:thumbnails.save' | 'capture:thumbnails.undecodable'> {
  return {
    'capture:thumbnails.get': ({ path }) => desk.get(path),
    'capture:thumbnails.save': ({ path, jpeg }) => desk.save(path, jpeg),
    'capture:thumbnails.undecodable': ({ path, reason }) => desk.undecodable(path, reason),
  };
}
