import { describe, expect, it } from 'vitest';
import { EXIT, SIGNAL_EXIT, worstExit } from './exit-status.js';

describe('worstExit', () => {
  it.each([
    [[EXIT.person, EXIT.done], EXIT.person],
    [[EXIT.later, EXIT.person], EXIT.person],
    [[EXIT.done, EXIT.later], EXIT.later],
    [[EXIT.person, EXIT.fault], EXIT.fault],
    [[EXIT.fault, SIGNAL_EXIT.SIGHUP], 129],
    [[EXIT.person, EXIT.pipeClosed], 141],
    [[], EXIT.done],
  ])('of %j is %i', (codes, worst) => {
    expect(worstExit(...codes)).toBe(worst);
  });

  it('gives the signals their shell statuses', () => {
    expect(SIGNAL_EXIT).toEqual({ SIGHUP: 129, SIGINT: 130, SIGTERM: 143 });
  });
});
