import type { IpcHandlers } from '../../ipc/dispatch.js';
import type { ThumbnailMaker } from '../thumbnail-maker.js';

/**
 * The thumbnails' IPC handlers (shared/ipc/thumbnails.ts), over the service's
 * ThumbnailMaker, and `files.inspect` (the Upload screen's, `inspect`) wrapped so that the
 * recordings it lists are the ones whose thumbnails may be read. Errors are thrown as Error with a
 * message for the screen.
 */
export function thumbnailHandlers(
  maker: ThumbnailMaker,
  inspect: IpcHandlers['capture:files.inspect'],
): Pick<
  IpcHandlers,
  'capture:files.inspect' | 'capture:thumbnails.get' | 'capture:thumbnails.save' | 'capture:thumbnails.undecodable'
> {
  return {
    'capture:files.inspect': async (paths, signal) => {
      const found = await inspect(paths, signal);
      maker.allow(found.captures.flatMap((x) => x.files.map((f) => f.path)));
      return found;
    },
    'capture:thumbnails.get': ({ path, recording }) => maker.get(path, { recording }),
    'capture:thumbnails.save': ({ path, jpeg }) => maker.save(path, jpeg),
    'capture:thumbnails.undecodable': ({ path, reason }) => maker.undecodable(path, reason),
  };
}
