import type { IpcHandlers } from '../../ipc/dispatch.js';
import type { ThumbnailDesk } from '../thumbnail-desk.js';

/**
 * The thumbnails' IPC handlers (shared/ipc/thumbnails.ts), over the service's
 * ThumbnailDesk, and `files.inspect` (the Upload screen's, `inspect`) wrapped so that the
 * recordings it lists are the ones whose thumbnails may be read. Errors are thrown as Error with a
 * message for the screen.
 */
export function thumbnailHandlers(
  desk: ThumbnailDesk,
  inspect: IpcHandlers['capture:files.inspect'],
): Pick<
  IpcHandlers,
  'capture:files.inspect' | 'capture:thumbnails.get' | 'capture:thumbnails.save' | 'capture:thumbnails.undecodable'
> {
  return {
    'capture:files.inspect': async (paths, signal) => {
      const found = await inspect(paths, signal);
      desk.allow(found.captures.flatMap((x) => x.files.map((f) => f.path)));
      return found;
    },
    'capture:thumbnails.get': ({ path, recording }) => desk.get(path, { recording }),
    'capture:thumbnails.save': ({ path, jpeg }) => desk.save(path, jpeg),
    'capture:thumbnails.undecodable': ({ path, reason }) => desk.undecodable(path, reason),
  };
}
