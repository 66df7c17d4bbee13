// The exit statuses of docs/cli.md "Exit status" (and the README's table), the same for every
// command, so scripts can trust them.

/** 0 done, 1 a person is needed, 2 usage or a local fault, 3 work left that goes on by itself, 141 the output pipe closed. */
export const EXIT = { done: 0, person: 1, fault: 2, later: 3, pipeClosed: 141 } as const;

/** The signals every command that changes the queue handles alike (cli.md "Stopped by a signal"). */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** 128 + the signal's number, as a shell reports a process a signal ended: SIGHUP 129, SIGINT 130, SIGTERM 143. */
export const SIGNAL_EXIT: Readonly<Record<StopSignal, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/** Most serious first: a stop by a signal or a closed pipe, then a local fault, a person needed, work left, done. */
const SEVERITY = [129, 130, 143, EXIT.pipeClosed, EXIT.fault, EXIT.person, EXIT.later, EXIT.done];

/**
 * The exit status of a command made of steps (`run`: add, then drain): the most serious of the
 * steps' statuses (SEVERITY), so a step that needed a person is not hidden by a later one that
 * had nothing left to do. A status not in the table ranks as a local fault (2).
 */
export function worstExit(...codes: number[]): number {
  const rank = (c: number) => {
    const i = SEVERITY.indexOf(c);
    return i < 0 ? SEVERITY.indexOf(EXIT.fault) : i;
  };
  return codes.reduce((worst, c) => (rank(c) < rank(worst) ? c : worst), EXIT.done as number);
}
