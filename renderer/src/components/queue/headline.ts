import type { QueueHoldView, QueueTotals } from '../../../../shared/ipc.js';
import type { QueueState } from '../../../../shared/queue-state.js';
import { queueState } from '../../../../shared/queue-state.js';

/** The queue's state in a word or two, for across the room, and its colour (a CSS class). */
export interface Headline {
  text: string;
  tone: QueueState['tone'];
}

/**
 * What the whole queue is doing (shared/queue-state.ts queueState, the one computation the tray
 * and `status` use too), as the headline shows it.
 */
export function queueHeadline(
  t: QueueTotals,
  stop: { blocked?: string | null; hold?: QueueHoldView | null; now?: number } = {},
): Headline & { state: QueueState } {
  const state = queueState(t, stop);
  return { text: state.headline, tone: state.tone, state };
}
