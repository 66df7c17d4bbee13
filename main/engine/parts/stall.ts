import { SETTINGS } from '../../../shared/settings-table.js';

/**
 * The stall timeout (ms), on the monotonic clock (docs/engine.md, "A silent link";
 * docs/decisions/0012-silent-link-stall-timeout.md): a part that moves no byte this long while sending
 * is aborted; the link counts as silent after this long without a sign of life from storage
 * while parts are in flight (the screen then says "Waiting for storage", well inside the 60 s
 * promised); a part waits for its answer at most twice this long unless its own connection
 * measured its buffers to need longer. A setting (`stallTimeout`, in seconds, with its bounds:
 * shared/settings-table.ts), so this is its default; EngineOptions.stallTimeoutMs carries it.
 */
export const STALL_TIMEOUT_MS = SETTINGS.stallTimeout.default * 1000;

/**
 * The slowest link the engine is built for (bytes per second; main/api/http.ts, where the JSON
 * calls' deadlines use it too). Assumed for one part only when its own connection measured
 * nothing: every byte of it was taken at once into the system's buffers (it is smaller than they
 * are); older answers never stand in. Its own bytes, never the queue's, at this rate bound how
 * long it may wait for its answer, so that a small file on a slow link is not abandoned and sent
 * again for ever (docs/engine.md, "A silent link"); and twice its bytes at this rate bound a
 * part's whole time on the wire (part-put.ts partDeadlineMs).
 */
export { SLOWEST_LINK_BYTES_PER_S } from '../../api/http.js';

/** The cause of an outage told by silence (`quietMs` ms without a sign of life), as the screen, `status` and the log say it. */
export function silentLinkCause(quietMs: number): string {
  return `No answer from storage for ${Math.round(quietMs / 1000)} s: it takes no bytes and answers nothing`;
}

/** The cause of a gateway outage told by silence (`quietMs` ms without a sign of life), as the screen, `status` and the log say it (gateway-watch.ts). */
export function silentGatewayCause(quietMs: number): string {
  return `No answer from the capture gateway for ${Math.round(quietMs / 1000)} s: it accepts the connection and answers nothing`;
}

/**
 * The cause of a gateway outage told by answers that trickle (`quietMs` ms without an answer, the
 * bytes that came slower than the slowest link accepted), as the screen, `status` and the log say
 * it (gateway-watch.ts): "the capture service answers too slowly" (shared/causes.ts).
 */
export function slowGatewayCause(quietMs: number): string {
  return `The capture gateway answers too slowly: no whole answer for ${Math.round(quietMs / 1000)} s, its bytes coming slower than the slowest link accepted`;
}

/**
 * The cause of an outage at storage while the capture gateway still answers (`quietMs` ms since
 * storage's last sign of life): parts are taken and not answered, yet the network is not down
 * (the gateway answers, the in-doubt asks included). Said "storage answers too slowly"
 * (shared/causes.ts); "network down" is for when nothing at all answers.
 */
export function slowStorageCause(quietMs: number): string {
  return `Storage answers too slowly: no part answered for ${Math.round(quietMs / 1000)} s, while the capture gateway answers`;
}
