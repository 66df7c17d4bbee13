import type { IpcHandlers } from '../../ipc/dispatch.js';
import type { CardDesk } from '../card-desk.js';

/**
 * The card offer's and library settings' IPC handlers (shared/ipc/card.ts): the
 * cards mounted and this session's imports, starting and dismissing an import, and the library
 * settings with the folder's use. Errors are thrown as Error with a message for the screen.
 */
export function cardHandlers(
  desk: CardDesk,
): Pick<
  IpcHandlers,
  | 'capture:cards.list'
  | 'capture:cards.import'
  | 'capture:cards.stop'
  | 'capture:cards.dismiss'
  | 'capture:cards.eject'
  | 'capture:library.get'
  | 'capture:library.save'
> {
  return {
    'capture:cards.list': async () => desk.list(),
    'capture:cards.import': async ({ root }) => desk.startImport(root),
    'capture:cards.stop': ({ id }) => desk.stopImport(id),
    'capture:cards.dismiss': async ({ id }) => desk.dismiss(id),
    'capture:cards.eject': ({ id }) => desk.eject(id),
    'capture:library.get': () => desk.view(),
    'capture:library.save': (settings) => desk.save(settings),
  };
}
