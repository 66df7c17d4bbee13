import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A wall clock a test steps while a child process runs, through libfaketime: the child reads its
 * offset from a file the test rewrites (FAKETIME_NO_CACHE: at every call), and its monotonic clock
 * is left alone (DONT_FAKE_MONOTONIC), as an NTP correction or a DST step does. Test code only.
 */

/** Debian's libfaketime (package faketime). */
const FAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

/** Throws, naming the package, when libfaketime is not installed. */
export function requireFaketime(): void {
  if (!existsSync(FAKETIME)) throw new Error(`libfaketime is needed at ${FAKETIME} (Debian package faketime)`);
}

/** A stepped wall clock: the environment a child runs under, and the step. */
export interface SteppedClock {
  /** Environment for the child (LD_PRELOAD and libfaketime's settings). */
  env: Record<string, string>;
  /** Sets the offset from the real wall clock, in libfaketime's words (e.g. `-1h`, `+25h`, `+0`). */
  step(offset: string): void;
}

/** A clock at the real time (offset `+0`) whose offset lives in `<dir>/<name>.clock`. */
export function steppedClock(dir: string, name: string): SteppedClock {
  const file = join(dir, `${name}.clock`);
  const step = (offset: string) => writeFileSync(file, `${offset}\n`);
  step('+0');
  return {
    env: { LD_PRELOAD: FAKETIME, FAKETIME_TIMESTAMP_FILE: file, FAKETIME_NO_CACHE: '1', DONT_FAKE_MONOTONIC: '1' },
    step,
  };
}
