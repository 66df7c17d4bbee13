import { isatty } from 'node:tty';
import type { StopSignal } from './exit-status.js';
import { SIGNAL_EXIT } from './exit-status.js';

// Every command that changes the queue stops alike on SIGINT (Ctrl-C), SIGTERM (a service
// manager, kill) and SIGHUP (a closed terminal or SSH session): docs/cli.md "Stopped by a signal".

const SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * How long a command stopped by a signal waits for answers already on their way (ms): an
 * add-capture sent (engine.stop's `sentGraceMs`), as a part sent in full does for its answer.
 * Past it, the capture is marked `registration_unknown` for a person to decide (`resolve`), as the
 * interface's in-doubt rules ask, and the command ends.
 */
export const STOP_GRACE_MS = 5000;

/** A command's watch of the stop signals, from the moment it starts. */
export interface StopWatch {
  /** The first signal received, once one was. */
  readonly signal: StopSignal | undefined;
  /** Aborted at the first signal (its reason names the signal), for the work to stop between steps. */
  readonly aborted: AbortSignal;
  /** Calls `fn` at the first signal, or at once when one came already. One such function at a time. */
  onStop(fn: (signal: StopSignal) => void): void;
  /**
   * Stops asking the command to stop: a later signal (the process winding down) ends it at once
   * with 128 + the signal's number, after one line on stderr.
   */
  off(): void;
  /**
   * Stops listening and, when the stop was the hangup of the terminal the command runs in, ends
   * the process by SIGHUP itself (a shell's `$?` is 129 either way): Node 20's own exit restores
   * the terminal's settings and aborts when the terminal is gone (tcsetattr answers EIO; fixed
   * upstream by https://github.com/nodejs/node/pull/58200). Otherwise as `off`. Call it last.
   */
  end(): void;
}

/**
 * Starts watching SIGINT, SIGTERM and SIGHUP. The first asks the command to stop (`aborted`,
 * `onStop`), which then commits or marks what is in flight, says what is left and exits with
 * 128 + the signal's number. A second signal ends the process at once with its own status
 * (`process.exit`), after one line on stderr saying what is left to the next start: everything
 * the queue says was committed before the work it describes, so nothing is lost; a part sent in
 * full is asked for at storage, and a registration sent is decided by the in-doubt rules.
 */
export function watchStopSignals(): StopWatch {
  const controller = new AbortController();
  let signal: StopSignal | undefined;
  let stopFn: ((s: StopSignal) => void) | undefined;
  // Known now, while the terminal is there: after a hangup a TTY answers EIO, even to isatty.
  const onTerminal = [0, 1, 2].some((fd) => isatty(fd));
  const handlers = SIGNALS.map((s) => {
    const handler = () => {
      // A terminal that hung up answers every write with EIO: what is said goes to the support
      // log as well, and a failed write must not end the command before it has stopped cleanly.
      if (s === 'SIGHUP' && onTerminal) for (const out of [process.stdout, process.stderr]) out.on('error', () => {});
      if (signal === undefined) {
        signal = s;
        controller.abort(new Error(`Stopped by ${s}`));
        stopFn?.(s);
        return;
      }
      process.stderr.write(
        `Stopped at once by a second signal (${s}): answers still on their way are not waited for. A part sent in full is asked for at storage before it is sent again, and a capture whose registration was sent is marked unknown at the next start (capture-uploader resolve decides it).\n`,
      );
      // The terminal hung up: ended by SIGHUP itself, not by an exit that would abort (see `end`).
      if (onTerminal && (s === 'SIGHUP' || signal === 'SIGHUP')) {
        for (const [t, h] of handlers) process.off(t, h);
        process.kill(process.pid, 'SIGHUP');
        return;
      }
      process.exit(SIGNAL_EXIT[s]);
    };
    process.on(s, handler);
    return [s, handler] as const;
  });
  // Once the command stops listening (off, end) its work is over, done or refused: a signal that
  // comes while the process winds down (the queue and its sockets closing) ends it at once with
  // its status and a line, where Node's default would leave a death by signal that a supervisor
  // reads as a kill mid-work. These handlers keep nothing alive: the process ends as before.
  const late = SIGNALS.map((s) => {
    const handler = () => {
      if (s === 'SIGHUP' && onTerminal) for (const out of [process.stdout, process.stderr]) out.on('error', () => {});
      process.stderr.write(`Stopped by ${s} as the command was ending: nothing was in flight any more.\n`);
      if (onTerminal && s === 'SIGHUP') {
        offLate();
        process.kill(process.pid, 'SIGHUP');
        return;
      }
      process.exit(SIGNAL_EXIT[s]);
    };
    return [s, handler] as const;
  });
  let lateOn = false;
  const offLate = () => {
    for (const [t, h] of late) process.off(t, h);
    lateOn = false;
  };
  return {
    get signal() {
      return signal;
    },
    aborted: controller.signal,
    onStop(fn) {
      stopFn = fn;
      if (signal !== undefined) fn(signal);
    },
    off() {
      for (const [s, h] of handlers) process.off(s, h);
      if (!lateOn) for (const [s, h] of late) process.on(s, h);
      lateOn = true;
    },
    end() {
      this.off();
      if (signal === 'SIGHUP' && onTerminal) {
        offLate();
        process.kill(process.pid, 'SIGHUP');
      }
    },
  };
}
