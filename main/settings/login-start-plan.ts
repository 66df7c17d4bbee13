// Start at login, minimized to the tray: what each platform needs done, decided without touching
// Electron or the disk, so every platform's choice is checked on any machine
// (docs/decisions/0018-login-start.md). The shell (main/electron/main.ts) carries the plan out.
import { posix } from 'node:path';

/** The argument a login start passes the app: it opens no window, only the tray. */
export const HIDDEN_ARG = '--hidden';

/** The XDG autostart file's name (freedesktop.org Desktop Application Autostart Specification). */
const AUTOSTART_FILE = 'capture-uploader.desktop';

/** The app's name as the autostart entry shows it. */
const ENTRY_NAME = 'Capture Uploader';

/**
 * What to do so the app starts (or no longer starts) at login:
 * - `login-item`: `app.setLoginItemSettings(settings)` (macOS, Windows);
 * - `autostart-file`: write `contents` to `path`, or remove `path` when `contents` is null (Linux);
 * - `unsupported`: nothing can be done here, `reason` says why in words a person can read.
 */
export type LoginStartPlan =
  | {
      kind: 'login-item';
      settings: { openAtLogin: boolean; openAsHidden: true } | { openAtLogin: boolean; args: string[] };
    }
  | { kind: 'autostart-file'; path: string; contents: string | null }
  | { kind: 'unsupported'; reason: string };

/**
 * The plan for `platform` (Node's `process.platform`) with the app's executable `exePath`, the
 * setting `enabled` (start at login or not), and the environment `env` (`HOME`, `XDG_CONFIG_HOME`,
 * `APPIMAGE`). `launchArgs` come before `--hidden`: the app's folder when the executable is
 * Electron itself (`electron .`, a development run), else none. Pure: reads nothing, writes nothing.
 *
 * - macOS: a login item opened hidden (`openAsHidden`; macOS 13 and later ignore it, and the shell
 *   then knows a login start by `wasOpenedAtLogin`, see `startedHidden`).
 * - Windows: a login item (the Run key) started with `--hidden`. The same `args` go with `false`,
 *   since Windows names the entry by path and arguments.
 * - Linux: `$XDG_CONFIG_HOME/autostart/capture-uploader.desktop` (`~/.config` when unset or not
 *   absolute) running the executable with `--hidden`; an AppImage's own path (`APPIMAGE`), not the
 *   mount the running copy sits in, which changes each start.
 */
export function loginStartPlan(
  platform: string,
  exePath: string,
  enabled: boolean,
  env: Readonly<Record<string, string | undefined>>,
  launchArgs: readonly string[] = [],
): LoginStartPlan {
  if (platform === 'darwin') {
    // A macOS login item opens the app bundle and takes no arguments: Electron alone would open, not this app.
    if (launchArgs.length > 0)
      return {
        kind: 'unsupported',
        reason:
          'A development run (electron with the app’s folder) cannot be started at login on macOS; the installed app can.',
      };
    return { kind: 'login-item', settings: { openAtLogin: enabled, openAsHidden: true } };
  }
  if (platform === 'win32')
    return { kind: 'login-item', settings: { openAtLogin: enabled, args: [...launchArgs, HIDDEN_ARG] } };
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') {
    const configHome =
      env.XDG_CONFIG_HOME && posix.isAbsolute(env.XDG_CONFIG_HOME)
        ? env.XDG_CONFIG_HOME
        : env.HOME
          ? posix.join(env.HOME, '.config')
          : undefined;
    if (!configHome)
      return {
        kind: 'unsupported',
        reason: 'Neither XDG_CONFIG_HOME nor HOME is set, so there is no autostart folder.',
      };
    const path = posix.join(configHome, 'autostart', AUTOSTART_FILE);
    if (!enabled) return { kind: 'autostart-file', path, contents: null };
    const exe = env.APPIMAGE || exePath;
    if ([exe, ...launchArgs].some((a) => /[\n\r]/.test(a)))
      return { kind: 'unsupported', reason: 'The app’s path holds a line break, which an autostart entry cannot say.' };
    return { kind: 'autostart-file', path, contents: desktopEntry(exe, launchArgs) };
  }
  return { kind: 'unsupported', reason: `Starting at login is not offered on ${platform}.` };
}

/**
 * The autostart entry running `exe ...launchArgs --hidden` (Desktop Entry Specification 1.5, "The
 * Exec key"): an argument with a reserved character is quoted, `"`, `` ` ``, `$` and `\` escaped
 * inside the quotes, then every `\` escaped again as the key is a string value, and `%` doubled
 * (field codes).
 */
export function desktopEntry(exe: string, launchArgs: readonly string[] = []): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Version=1.5',
    `Name=${ENTRY_NAME}`,
    'Comment=Resumes the upload queue at login, minimized to the tray',
    `Exec=${[exe, ...launchArgs].map(execArg).join(' ')} ${HIDDEN_ARG}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** One argument of an Exec key, quoted and escaped as the Desktop Entry Specification says. */
function execArg(arg: string): string {
  const reserved = /[\s"'\\><~|&;$*?#()`]/.test(arg);
  const quoted = reserved ? `"${arg.replace(/["`$\\]/g, (c) => `\\${c}`)}"` : arg;
  return quoted.replace(/\\/g, '\\\\').replace(/%/g, '%%');
}

/**
 * Whether this start was a login start, which opens no window, only the tray: `--hidden` among
 * the arguments (Windows, Linux), or on macOS the login item's own word, `wasOpenedAsHidden`
 * (before macOS 13) or `wasOpenedAtLogin` (macOS 13 and later ignore `openAsHidden`, and the only
 * login item this app makes is a hidden one).
 */
export function startedHidden(
  argv: readonly string[],
  platform: string,
  loginItem?: { wasOpenedAsHidden?: boolean; wasOpenedAtLogin?: boolean },
): boolean {
  if (argv.includes(HIDDEN_ARG)) return true;
  return platform === 'darwin' && Boolean(loginItem?.wasOpenedAsHidden || loginItem?.wasOpenedAtLogin);
}
