import { writeNewerQueue } from '../testing/queue-backdoors.js';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { rec, storeSeed, appFrame, quitShell } from './electron-stand-in.js';
import { localSettings } from '../testing/kit.js';
import { useShellFolders } from '../testing/shell-folders.js';

// The queue cannot open at app start (here: written by a newer version): the window still opens,
// with the tray, and says what is wrong and what to do; no rejection goes unhandled.
// Start at login would write an XDG autostart file: here, never in the home of whoever runs the tests.
const { userData } = useShellFolders('shell-start-error', quitShell, { isolateLogin: true });
const queueDir = join(userData, 'queue');
writeNewerQueue(queueDir);
storeSeed.set('settings', localSettings());

vi.mock('electron', async () => (await import('./electron-stand-in.js')).electronModule(userData));
vi.mock('electron-store', async () => (await import('./electron-stand-in.js')).electronStoreModule);

describe('the Electron shell when the queue cannot open', () => {
  it('opens the window and the tray anyway, and the window is told what is wrong and what to do', async () => {
    await import('./main.js');
    rec.ready();
    await vi.waitFor(() => expect(rec.windows).toHaveLength(1));
    expect(rec.state.tooltips.length).toBeGreaterThanOrEqual(1);
    await vi.waitFor(() => expect(rec.windows[0]!.sent.some(([c]) => c === 'capture:event.service')).toBe(true), {
      timeout: 10_000,
    });
    const [, status] = rec.windows[0]!.sent.find(([c]) => c === 'capture:event.service')!;
    const error = (status as { queueError: string }).queueError;
    expect(error).toContain('written by a newer version of Capture Uploader');
    expect(error).toContain(`The queue is kept in the folder ${queueDir}`);
    expect(error).toContain('move that folder aside');
    // The renderer can ask for it again (a reload), and the settings still answer.
    expect(await rec.handlers.get('capture:service.status')!(appFrame(), undefined)).toEqual({
      ok: true,
      value: status,
    });
    expect(await rec.handlers.get('capture:settings.get')!(appFrame(), undefined)).toMatchObject({
      ok: true,
      value: { mode: 'local' },
    });
  });
});
