import type { CredentialsRefusedError } from '../../api/errors.js';
import type { EngineContext } from '../context.js';
import type { EngineEvent } from '../events.js';

/**
 * The engine's stop of the whole queue when the service refuses its credentials (§5, §7:
 * CredentialsRefusedError, from the Registrar or the Scheduler), and its record in the queue's
 * meta table (QueueMeta.setBlocked), so `capture-uploader status`, another process, says "Needs
 * you" exactly when the app's headline does, as OutageRecord does for outages.
 *
 * The stop lasts as long as this engine: nothing in it lifts it (new credentials reach the app by
 * building a new uploader, main/service/app-core.ts), so the record is kept after a drain ends
 * (the app still says "Needs you" then) and removed when the engine stops (the app quits or
 * re-creates its uploader; the CLI's command ends) and when an engine opens the queue (one left
 * by a process that was killed is no longer anyone's). The message holds the setting to fix and
 * the service's answer, never a password, key or token. A failure to write is the engine's `fatal` to judge.
 */
export class BlockRecord {
  private why: string | null = null;
  private recorded = false;

  constructor(
    private readonly ctx: EngineContext,
    private readonly emit: (e: EngineEvent) => void,
    private readonly wake: () => void,
  ) {}

  /** Why the queue is stopped ("The sign-in service refuses the account (…): fix …; 2 capture(s) and 3 file(s) wait."), or null. */
  get message(): string | null {
    return this.why;
  }

  /**
   * Stops the queue for `err` (only the first refusal counts): noted in the activity log, logged,
   * recorded in the queue and told to listeners as a `blocked` event; the drain loop is woken so it sees it.
   */
  refuse(err: CredentialsRefusedError): void {
    if (this.why !== null) return;
    const q = this.ctx.queue;
    // A capture still registering (the other lane's request, met by the same refusal) waits too.
    this.why = `${err.message}; ${q.captures(['queued', 'registering']).length} capture(s) and ${q.files(['pending']).length} file(s) wait.`;
    this.ctx.transitions.note({ kind: 'blocked', message: this.why });
    this.ctx.log.warn(this.why);
    this.write(this.why);
    this.emit({ type: 'blocked', message: this.why });
    this.wake();
  }

  /** No engine stops the queue any more (this one stopped), or none ever did (`opening`: a new engine, whatever was left). */
  forget(opening = false): void {
    if (opening || this.recorded) this.write(null);
  }

  private write(message: string | null): void {
    try {
      this.ctx.queue.meta.setBlocked(message);
      this.recorded = message !== null;
    } catch (err) {
      if (!this.ctx.fatal(err)) throw err;
    }
  }
}
