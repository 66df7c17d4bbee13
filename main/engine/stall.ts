/**
 * The stall timeout (ms), on the monotonic clock (docs/engine.md, "A silent link";
 * docs/decisions/silent-link-stall-timeout.md): a part that moves no byte this long while sending
 * is aborted; the link counts as silent after this long without a sign of life from storage
 * while parts are in flight (the screen then says "Waiting for storage", well inside the 60 s
 * promised); a part waits for its answer at most twice this long unless its own connection
 * measured its buffers to need longer. Tests may set EngineOptions.stallTimeoutMs instead.
 */
export const STALL_TIMEOUT_MS = 30_000;

/**
 * The slowest link the engine is built for (bytes per second). Assumed for one part only when
 * its own connection measured nothing: every byte of it was taken at once into the system's
 * buffers (it is smaller than they are); older answers never stand in. Its own bytes, never the
 * queue's, at this rate bound how long it may wait for its answer, so that a small file on a slow
 * link is not abandoned and sent again for ever (docs/engine.md, "A silent link").
 */
export const SLOWEST_LINK_BYTES_PER_S = 16 * 1024;

/** The cause of an outage told by silence (`quietMs` ms without a sign of life), as the screen, `status` and the log say it. */
export function silentLinkCause(quietMs: number): string {
  return `No answer from storage for ${Math.round(quietMs / 1000)} s: it takes no bytes and answers nothing`;
}

/** The cause of a gateway outage told by silence (`quietMs` ms without a sign of life), as the screen, `status` and the log say it (gateway-watch.ts). */
export function silentGatewayCause(quietMs: number): string {
  return `No answer from the capture gateway for ${Math.round(quietMs / 1000)} s: it accepts the connection and answers nothing`;
}
