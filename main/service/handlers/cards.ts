import type { IpcHandlers } from '../../ipc/dispatch.js';
import type { CardImports } from '../card-imports.js';

/**
 * The card offer's and library settings' IPC handlers (shared/ipc/card.ts): the
 * cards mounted and this session's imports, starting and dismissing an import, and the library
 * settings with the folder's use. Errors are thrown as Error with a message for the screen.
 */
export function cardHandlers(
  cardImports: CardImports,
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
    'capture:cards.list': async () => cardImports.list(),
    'capture:cards.import': async ({ root }) => cardImports.startImport(root),
    'capture:cards.stop': ({ id }) => cardImports.stopImport(id),
    'capture:cards.dismiss': async ({ id }) => cardImports.dismiss(id),
    'capture:cards.eject': ({ id }) => cardImports.eject(id),
    'capture:library.get': () => cardImports.view(),
    'capture:library.save': (settings) => cardImports.save(settings),
  };
}
