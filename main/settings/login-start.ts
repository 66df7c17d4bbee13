// The "start at login" setting: the person's choice, kept apart from the default, and the default
// itself, on while the queue holds unfinished work (docs/decisions/0018-login-start.md). Electron-free:
// the shell gives it the function that applies the setting (main/settings/login-start-plan.ts
// carried out), the browser tests a recording one.
import type { LoginStartView, QueueTotals } from '../../shared/ipc.js';
import type { IpcHandlers } from '../ipc/dispatch.js';
import type { KeyValueStore } from './settings.js';

/** The settings file's key of the person's choice: true, false, or absent/null for the default. */
export const LOGIN_START_KEY = 'startAtLogin';

/** Whether the queue holds work not yet done: files neither completed nor cancelled (waiting, sending, paused or failed). */
export function hasUnfinishedWork(totals: Pick<QueueTotals, 'files' | 'completed' | 'cancelled'>): boolean {
  return totals.files - totals.completed - totals.cancelled > 0;
}

/** Whether the app should start at login: the person's choice when they made one, else whether the queue holds unfinished work. */
function loginStartEnabled(choice: boolean | null, unfinishedWork: boolean): boolean {
  return choice ?? unfinishedWork;
}

/** What LoginStart needs from the shell. */
export interface LoginStartOptions {
  /** The settings file (electron-store in the app); the choice is kept under LOGIN_START_KEY. */
  store: KeyValueStore;
  /** Whether this system offers starting at login; false answers `supported: false` and applies nothing. */
  supported: boolean;
  /** Makes the app start at login (true) or not (false); throws an Error a person can read when it cannot. */
  apply(enabled: boolean): void;
}

/**
 * The setting in the main process: answers the Settings screen (`capture:loginStart.get|set`,
 * shared/ipc.ts SHELL_CHANNELS), follows the queue's totals for the default, and applies the
 * setting whenever what it says changes, once per change (totals come ten a second).
 */
export class LoginStart {
  /** What was last applied; undefined before the first application. */
  private applied?: boolean;
  /** Whether the queue holds unfinished work; undefined until the service's first totals. */
  private unfinished?: boolean;
  private error: string | null = null;

  constructor(private readonly opts: LoginStartOptions) {}

  /** The person's choice, or null when they made none (the default applies). */
  choice(): boolean | null {
    const v = this.opts.store.get(LOGIN_START_KEY);
    return typeof v === 'boolean' ? v : null;
  }

  /** Applies the person's choice at once when there is one; the default waits for the queue's first totals. */
  start(): void {
    this.refresh();
  }

  /** Takes the queue's totals (QueueTotals, as the service sends them) and applies the default if they change it. */
  onTotals(totals: Pick<QueueTotals, 'files' | 'completed' | 'cancelled'>): void {
    this.unfinished = hasUnfinishedWork(totals);
    this.refresh();
  }

  /** The setting as the Settings screen shows it. */
  view(): LoginStartView {
    const choice = this.choice();
    return {
      enabled: this.opts.supported && loginStartEnabled(choice, this.unfinished ?? false),
      choice,
      unfinishedWork: this.unfinished ?? false,
      supported: this.opts.supported,
      error: this.error,
    };
  }

  /**
   * Records the person's choice (null: back to the default) and applies it now, even if it reads
   * as before. Back to the default before the queue said anything (it could not open): no work is
   * known, so the app is taken off the login items rather than left as the choice had it.
   */
  set(enabled: boolean | null): LoginStartView {
    this.opts.store.set(LOGIN_START_KEY, enabled);
    this.applied = undefined;
    if (enabled === null) this.unfinished ??= false;
    this.refresh();
    return this.view();
  }

  /** The two shell channels' handlers, for the IPC dispatch beside the service's (main/ipc/dispatch.ts). */
  handlers(): Pick<IpcHandlers, 'capture:loginStart.get' | 'capture:loginStart.set'> {
    return {
      'capture:loginStart.get': async () => this.view(),
      'capture:loginStart.set': async ({ enabled }) => this.set(enabled),
    };
  }

  private refresh(): void {
    if (!this.opts.supported) return;
    const choice = this.choice();
    // The default needs the queue's word: until it comes, what the system has stays.
    if (choice === null && this.unfinished === undefined) return;
    const enabled = loginStartEnabled(choice, this.unfinished ?? false);
    if (enabled === this.applied) return;
    this.applied = enabled;
    try {
      this.opts.apply(enabled);
      this.error = null;
    } catch (err) {
      this.error = `Starting at login could not be ${enabled ? 'turned on' : 'turned off'}: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
}
