import { describe, expect, it } from 'vitest';
import type { DrainSummary } from '../engine/engine.js';
import { summaryLines } from './render.js';

// The last line of a drain says what to do next. A registration left unknown (the service may or
// may not have registered the capture: §4.4 add-capture is not idempotent) waits for a person's
// word, which waiting cannot give: the line after it points to `resolve`, not to `drain --wait`.

const capture = (id: number, state: string, label = `walk-${id}.mp4`) => ({
  id,
  label,
  state,
  error: 'No answer from the service after add-capture was sent',
});
const summary = (parts: Partial<DrainSummary>): DrainSummary =>
  ({
    completed: [],
    failed: [],
    paused: [],
    cancelled: [],
    waiting: [],
    queued: [],
    needsAttention: [],
    blocked: null,
    fatal: null,
    cardRemoved: null,
    ...parts,
  }) as unknown as DrainSummary;

describe('what a drain advises after registrations left unknown', () => {
  it('points to resolve, naming the captures, when nothing else is left', () => {
    const lines = summaryLines(
      summary({ needsAttention: [capture(1, 'registration_unknown'), capture(4, 'registration_unknown')] } as never),
    );
    expect(lines.at(-1)).toBe(
      'Captures 1 and 4: whether the service registered them is unknown, and waiting cannot tell. Look for them on the platform, then run `capture-uploader resolve ID --drop` for those it has, `capture-uploader resolve ID --register-again` for the others.',
    );
    expect(lines.join('\n')).not.toMatch(/drain --wait/);
  });

  it('with captures still to register as well: drain --wait for those, then resolve for the unknown one, last', () => {
    const lines = summaryLines(
      summary({ needsAttention: [capture(2, 'registration_unknown')], queued: [capture(3, 'queued')] } as never),
    );
    expect(lines.slice(-2)).toEqual([
      'Run `capture-uploader drain --wait` to keep going through outages until the rest is sent.',
      'Capture 2: whether the service registered it is unknown, and waiting cannot tell. Look for it on the platform, then run `capture-uploader resolve 2 --drop` if it has it, `capture-uploader resolve 2 --register-again` if not.',
    ]);
  });

  it('a capture the service refused is no registration unknown: no resolve line', () => {
    const lines = summaryLines(summary({ needsAttention: [capture(5, 'rejected')] } as never));
    expect(lines.join('\n')).not.toMatch(/resolve/);
  });
});
