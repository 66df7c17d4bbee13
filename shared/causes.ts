/**
 * Every kind of trouble an operator reads a cause for: an outage (storage, the capture service,
 * the network, an address that leads nowhere, the credentials, a full disk) or a file's own
 * problem. The one table of their words is CAUSE_WORDS (docs/outage-words.md).
 */
export type CauseKind =
  | 'file-changed'
  | 'file-unreadable'
  | 'file-too-large'
  | 'disk-full'
  | 'credentials'
  | 'url-expired'
  | 'unreachable'
  | 'storage-busy'
  | 'storage-slow'
  | 'storage'
  | 'capture-service'
  | 'service-slow'
  | 'network'
  | 'refused'
  | 'failed'
  | 'unknown';

/**
 * The one wording of each cause, in a few words read at a glance: the window's headline and rows,
 * the tray, `capture-uploader status`, the morning summary (app and `log --summary`) and
 * `capture-uploader log` all say a cause with these words and no others (docs/outage-words.md).
 */
export const CAUSE_WORDS: Readonly<Record<CauseKind, string>> = {
  'file-changed': 'the file changed on disk',
  'file-unreadable': 'the file cannot be read',
  'file-too-large': 'the file is too large',
  'disk-full': 'the disk is full',
  credentials: 'the service refuses the credentials',
  'url-expired': 'URL expired, re-signing',
  unreachable: 'service unreachable: check the address and network',
  'storage-busy': 'storage is busy',
  'storage-slow': 'storage answers too slowly',
  storage: 'storage unavailable',
  'capture-service': 'capture service unavailable',
  'service-slow': 'the capture service answers too slowly',
  network: 'network down',
  refused: 'refused by the service',
  failed: 'upload failed',
  unknown: 'unknown error',
};

/**
 * What waits during an outage at `storage` or the `gateway` (shared/ipc.ts QueueOutage.where):
 * the headline's words, said the same by the rows that wait, the tray, `status` and the log.
 */
export const WAITING_FOR: Readonly<Record<'storage' | 'gateway', string>> = {
  storage: 'Waiting for storage',
  gateway: 'Waiting for the gateway',
};

// In order: the first test a message passes gives its kind. A silence (main/engine/parts/stall.ts:
// "No answer from storage for 30 s", "No answer from the capture gateway …") reads as the network's
// (docs/engine.md, "A silent link").
const KINDS: readonly (readonly [CauseKind, RegExp])[] = [
  ['file-changed', /changed while uploading/],
  ['file-unreadable', /cannot be read/i],
  ['disk-full', /disk is full|ENOSPC|SQLITE_FULL/i],
  ['credentials', /refuses the (API key|account|project)|sign-in service refuses|HTTP 401/],
  ['url-expired', /HTTP 403 on PUT|AccessDenied|presigned URL/i],
  ['unreachable', /cannot be reached/],
  ['storage-busy', /SlowDown|HTTP 429/],
  ['storage', /HTTP 5\d\d on PUT/],
  ['capture-service', /HTTP 5\d\d on (POST|GET)/],
  // An answer past its total deadline, or the gateway's answers trickling (main/api/http.ts, main/engine/parts/stall.ts).
  ['service-slow', /capture (service|gateway) answers too slowly/i],
  // A part past its whole deadline on the wire (main/engine/parts/part-put.ts partDeadlineMs).
  ['storage-slow', /Storage answers too slowly/i],
  ['network', /No answer|No progress|ECONN|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|socket hang up/i],
  ['refused', /HTTP 4\d\d/],
];

/** The kind of a failure from the engine's message (see main/api/errors.ts reasonOf); `unknown` when there is none. */
function causeKind(error: string | null | undefined): CauseKind {
  if (!error) return 'unknown';
  // Told apart before the other tests: "10,000 parts" says nothing else in words they match.
  if (/10,000/.test(error) && /parts/.test(error)) return 'file-too-large';
  return KINDS.find(([, test]) => test.test(error))?.[0] ?? 'failed';
}

/**
 * A failure in words an operator reads at a glance ("storage unavailable", "network down"), from
 * the engine's message: CAUSE_WORDS of its causeKind. The full message stays available behind a
 * details disclosure; this only names the kind of trouble.
 */
export function plainCause(error: string | null | undefined): string {
  return CAUSE_WORDS[causeKind(error)];
}

/**
 * A failure's message with its cause first, in the one wording (CAUSE_WORDS): "storage unavailable
 * — InternalError: … (HTTP 500 on PUT …)", for `status` and `log`, which show the service's words
 * too. A message of no known cause, or one that says its cause in these words already, is given
 * as it is.
 */
export function causeFirst(message: string): string {
  const kind = causeKind(message);
  if (kind === 'failed' || kind === 'unknown') return message;
  const words = CAUSE_WORDS[kind];
  return message.startsWith(words) ? message : `${words} — ${message}`;
}
