/**
 * A failure in words an operator reads at a glance ("storage unavailable", "network down"), from
 * the engine's message (see main/api/errors.ts reasonOf). The full message stays available behind
 * a details disclosure; this only names the kind of trouble.
 */
export function plainCause(error: string | null | undefined): string {
  if (!error) return 'unknown error';
  if (/changed while uploading/.test(error)) return 'the file changed on disk';
  if (/cannot be read/i.test(error)) return 'the file cannot be read';
  if (/10,000/.test(error) && /parts/.test(error)) return 'the file is too large';
  if (/refuses the (API key|account|project)|sign-in service refuses/.test(error))
    return 'the service refuses the credentials';
  if (/HTTP 403 on PUT|AccessDenied|presigned URL/i.test(error)) return 'URL expired, re-signing';
  if (/cannot be reached/.test(error)) return 'service unreachable: check the address and network';
  if (/SlowDown|HTTP 429/.test(error)) return 'storage is busy';
  if (/HTTP 5\d\d on PUT/.test(error)) return 'storage unavailable';
  if (/HTTP 5\d\d on (POST|GET)/.test(error)) return 'capture service unavailable';
  if (/No answer|No progress|ECONN|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|socket hang up/i.test(error))
    return 'network down';
  if (/HTTP 4\d\d/.test(error)) return 'refused by the service';
  return 'upload failed';
}
