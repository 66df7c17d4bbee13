// The thin Electron shell: the only code that imports `electron` (CONVENTIONS.md, "Where code
// lives"). Everything it drives (engine, queue, API clients, IPC handlers) runs under plain Node.
import { BrowserWindow, app, session } from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_ID, APP_NAME } from '../../shared/app-info.js';

const here = fileURLToPath(new URL('.', import.meta.url));

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1200,
    height: 800,
    title: APP_NAME,
    show: false,
    webPreferences: {
      preload: join(here, '../../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  // Navigation and new windows are refused: the renderer only ever shows the app's own files.
  win.webContents.on('will-navigate', (event) => event.preventDefault());
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  win.once('ready-to-show', () => win.show());
  void win.loadFile(join(here, '../../renderer/index.html'));
  return win;
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.setAppUserModelId(APP_ID);
  void app.whenReady().then(() => {
    session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
    createWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}
