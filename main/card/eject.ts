import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

/**
 * Runs a program with its arguments (no shell) and answers its exit code and output; rejects only
 * when it cannot be started at all (ENOENT: not installed). ejectCard's seam: tests give a stand-in.
 */
export type CommandRunner = (
  command: string,
  args: readonly string[],
) => Promise<{ code: number; stdout: string; stderr: string }>;

/** What ejectCard did: `ejected` only when the card may be taken out; `message` says so, or what to do, for a person. */
export interface EjectResult {
  ejected: boolean;
  message: string;
}

/** The runner of the real system: child_process.execFile, 60 s at most (an eject waits for the card's writes to drain). */
const runCommand: CommandRunner = (command, args) =>
  new Promise((resolve, reject) => {
    execFile(command, [...args], { timeout: 60_000, windowsHide: true }, (err, stdout, stderr) => {
      const code = (err as NodeJS.ErrnoException | null)?.code;
      if (typeof code === 'string') return reject(err!);
      resolve({
        code: err ? (typeof code === 'number' ? code : 1) : 0,
        stdout: String(stdout),
        stderr: String(stderr),
      });
    });
  });

/** A field of /proc/self/mounts: the kernel writes space, tab, newline and backslash as octal escapes (\040). */
const unescapeMountField = (s: string) =>
  s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/**
 * The block device mounted at `mountPoint` according to `mounts` (the text of /proc/self/mounts),
 * e.g. `/dev/sdb1`; the last line wins, as the mount made last hides the ones under it. Undefined
 * when nothing from /dev is mounted there.
 */
export function blockDeviceOf(mounts: string, mountPoint: string): string | undefined {
  const want = mountPoint.length > 1 ? mountPoint.replace(/\/+$/, '') : mountPoint;
  let found: string | undefined;
  for (const line of mounts.split('\n')) {
    const [device, at] = line.split(' ').map(unescapeMountField);
    if (device?.startsWith('/dev/') && at === want) found = device;
  }
  return found;
}

/** The first line of what a program said on failure, trimmed, for a sentence. */
const firstLine = (s: string) => s.trim().split('\n')[0]?.trim() ?? '';
const BUSY = /busy|dissent|in use|being used|could not be unmounted|failed to unmount/i;

/**
 * Ejects the card mounted at `mountPoint` (its root, as card detection gives it) so it can be
 * taken out of the reader:
 * - Linux: `udisksctl unmount -b DEV && udisksctl power-off -b DEV`, DEV the block device mounted
 *   there (from /proc/self/mounts; `mounts` gives its text instead). The card is safe once
 *   unmounted; a reader that refuses the power-off is said, not failed.
 * - macOS: `diskutil eject MOUNT`.
 * - Windows: PowerShell's Shell.Application "Eject" verb on the drive (as Explorer's Eject), then
 *   up to 5 s for the drive's root to go; still there, it is taken as refused (in use).
 * `run` runs each program (runCommand by default; a test gives a stand-in). Never throws: a device
 * busy, a program missing or another refusal answers `ejected: false` with a sentence saying what
 * to do.
 */
export async function ejectCard(
  mountPoint: string,
  platform: NodeJS.Platform = process.platform,
  run: CommandRunner = runCommand,
  mounts?: string,
): Promise<EjectResult> {
  const name = basename(mountPoint.replace(/[\\/]+$/, '')) || mountPoint;
  const busy = `${name} could not be ejected: a program is still using it (a file manager window or a terminal open on it, a player showing a recording). Close it and press Eject again.`;
  const refused = (tool: string, said: string) =>
    BUSY.test(said)
      ? { ejected: false, message: busy }
      : {
          ejected: false,
          message: `${name} could not be ejected (${tool}: ${firstLine(said) || 'no reason given'}). Eject it from the file manager before taking it out.`,
        };
  const attempt = async (command: string, args: readonly string[]) => {
    try {
      return await run(command, args);
    } catch (err) {
      return {
        code: -1,
        stdout: '',
        stderr: `${command} could not be started (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      };
    }
  };
  const done: EjectResult = { ejected: true, message: `${name} was ejected: you can take it out of the reader.` };

  if (platform === 'linux') {
    let text = mounts;
    if (text === undefined) text = await readFile('/proc/self/mounts', 'utf8').catch(() => '');
    const device = blockDeviceOf(text, mountPoint);
    if (!device)
      return {
        ejected: false,
        message: `${name} could not be ejected: no disk is mounted at ${mountPoint} any more. If it is still in the reader, eject it from the file manager.`,
      };
    const unmount = await attempt('udisksctl', ['unmount', '-b', device]);
    if (unmount.code !== 0) return refused('udisksctl', unmount.stderr || unmount.stdout);
    const off = await attempt('udisksctl', ['power-off', '-b', device]);
    if (off.code !== 0)
      return {
        ejected: true,
        message: `${name} was unmounted: you can take it out of the reader (the reader itself stayed powered: ${firstLine(off.stderr || off.stdout) || 'no reason given'}).`,
      };
    return done;
  }
  if (platform === 'darwin') {
    const r = await attempt('diskutil', ['eject', mountPoint]);
    return r.code === 0 ? done : refused('diskutil', r.stderr || r.stdout);
  }
  if (platform === 'win32') {
    const drive = mountPoint.slice(0, 2).toUpperCase();
    if (!/^[A-Z]:$/.test(drive))
      return {
        ejected: false,
        message: `${name} could not be ejected: ${mountPoint} is not a drive letter. Eject it from the file manager.`,
      };
    const r = await attempt('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', windowsEjectScript(drive)]);
    return r.code === 0 ? done : refused('Windows', r.stderr || r.stdout);
  }
  return {
    ejected: false,
    message: `${name} could not be ejected: this system has no eject this app knows. Eject it from the file manager.`,
  };
}

/**
 * The PowerShell of the Windows eject for drive `drive` ("E:"): Explorer's own "Eject" verb on the
 * drive in "This PC" (Shell.Application namespace 17), then up to 5 s for its root to go; exit 1
 * saying the drive is in use when it stays (the verb itself answers nothing).
 */
export function windowsEjectScript(drive: string): string {
  return [
    `$d = (New-Object -ComObject Shell.Application).Namespace(17).ParseName('${drive}')`,
    `if (-not $d) { [Console]::Error.WriteLine('Drive ${drive} not found'); exit 1 }`,
    `$d.InvokeVerb('Eject')`,
    `for ($i = 0; $i -lt 20; $i++) { if (-not (Test-Path '${drive}\\')) { exit 0 }; Start-Sleep -Milliseconds 250 }`,
    `[Console]::Error.WriteLine('Drive ${drive} is in use'); exit 1`,
  ].join('; ');
}
