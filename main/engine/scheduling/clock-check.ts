// The computer's clock against the queue's own history: a clock set years ahead or back does not
// stop an upload (presigned URLs are the gateway's, and the engine's timers run on the monotonic
// clock), but it dates the activity log and the support log wrongly. Their pruning keeps the
// newest days that have lines whatever the clock says (main/queue/activity.ts,
// main/support/log-file.ts); this says once, at open, that the dates written now may be wrong.

/** A clock this far behind the newest line looks set back: more than NTP's corrections, 5 min. */
const BEHIND_MS = 5 * 60_000;
/** A clock this far ahead of the newest line looks set years ahead: two years. */
const AHEAD_MS = 2 * 366 * 86_400_000;

const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The sentence a person reads when the clock (`now`, ms since 1970) looks wrong against the
 * queue's newest activity line (`newestAt`, ISO 8601, ActivityLog.newestAt; null for an empty
 * log): before it by more than 5 minutes, or more than two years after it. Null when it looks
 * right, or there is nothing to compare with. Never throws.
 */
export function clockLooksWrong(now: number, newestAt: string | null): string | null {
  const newest = newestAt === null ? NaN : Date.parse(newestAt);
  if (!Number.isFinite(newest) || !Number.isFinite(now)) return null;
  const kept = "the queue's history and uploads are kept either way, but what happens now is dated by it";
  if (now < newest - BEHIND_MS)
    return `The computer's clock reads ${utc(now)}, before this queue's newest entry (${utc(newest)}): it looks wrong; set the clock (${kept}).`;
  if (now > newest + AHEAD_MS)
    return `The computer's clock reads ${utc(now)}, years after this queue's newest entry (${utc(newest)}): if that is wrong, set the clock (${kept}).`;
  return null;
}
