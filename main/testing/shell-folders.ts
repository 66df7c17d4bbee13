import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, vi } from 'vitest';

/**
 * The folders of a test file that runs the Electron shell against its stand-in
 * (main/electron/electron-stand-in.ts): `userData`, the app's own folder, and `work`, for the files
 * the tests drop, both made now and named after `prefix`. With `isolateLogin`, XDG_CONFIG_HOME
 * points at a third folder, so start at login writes its autostart file there and never in the home
 * of whoever runs the tests. After the file's tests (an `afterAll` hook this call registers; call it
 * at the top level) `quit` closes the shell, then every folder is deleted and the environment put back.
 */
export function useShellFolders(
  prefix: string,
  quit: () => Promise<void>,
  opts: { isolateLogin?: boolean } = {},
): { userData: string; work: string } {
  // Made here rather than with the kit's tempDir: the shell's tests load nothing the kit loads.
  const folder = (suffix: string) => mkdtempSync(join(tmpdir(), `${prefix}-${suffix}-`));
  const folders = [folder('data'), folder('files')];
  if (opts.isolateLogin) {
    folders.push(folder('xdg'));
    vi.stubEnv('XDG_CONFIG_HOME', folders[2]!);
  }
  afterAll(async () => {
    await quit();
    for (const f of folders) rmSync(f, { recursive: true, force: true });
    if (opts.isolateLogin) vi.unstubAllEnvs();
  });
  return { userData: folders[0]!, work: folders[1]! };
}
