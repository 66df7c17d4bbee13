// What a support log line or report entry may say: no password, API key, sign-in token or
// presigned URL (docs/decisions/0019-support-log-report.md). Errors already carry a request as method,
// host and path only (main/api/errors.ts describeRequest); this is the same rule applied to any
// text on its way into a file a person sends to support, plus the secrets the process knows.
import { printable } from '../../shared/printable.js';
import { isTableSecret } from './report-settings.js';

/** What a hidden secret is replaced with. */
const HIDDEN = '[hidden]';

/** Names under which a value is a secret, in `name=value`, `name: value` or `"name":"value"`. */
const SECRET_NAME = String.raw`(?:password|passwd|secret|token|access[_-]?token|refresh[_-]?token|id[_-]?token|api[_-]?key|x-api-key|authorization|signature|x-amz-signature|x-amz-credential|x-amz-security-token|credential|sealed[a-z]*)`;

/** A URL with a query or fragment, or credentials before its host. */
const URL_RE = /\b([a-z][a-z0-9+.-]*):\/\/([^\s"'<>]+)/gi;
/** `Bearer abc…` / `Basic abc…` (an Authorization header's value). */
const AUTH_SCHEME_RE = /\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi;
/** A JSON Web Token (three base64url segments, the first a JSON header `eyJ…`). */
const JWT_RE = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
/** `"password":"…"` in JSON text. */
const JSON_PAIR_RE = new RegExp(String.raw`("${SECRET_NAME}"\s*:\s*)"(?:[^"\\]|\\.)*"`, 'gi');
/** `password=…`, `api_key: …`, `Authorization: …` in plain text (up to the next space, comma or quote). */
const PLAIN_PAIR_RE = new RegExp(
  String.raw`\b(${SECRET_NAME})(\s*[=:]\s*)(?!\[hidden\]|(?:Bearer|Basic)\s)[^\s,;&"'}]+`,
  'gi',
);

/**
 * A URL as it may be written down: scheme, host, port and path; its query and fragment (a
 * presigned URL's signature and credential, a token) and any `user:password@` dropped, the way
 * main/api/errors.ts `describeRequest` keeps a failed request. Text that does not parse as a URL
 * is hidden whole.
 */
function urlWithoutSecrets(scheme: string, rest: string): string {
  // Trailing punctuation of the sentence is not part of the URL.
  const tail = /[).,;:!?\]]+$/.exec(rest)?.[0] ?? '';
  const body = tail ? rest.slice(0, -tail.length) : rest;
  try {
    const u = new URL(`${scheme}://${body}`);
    const hadMore = u.search !== '' || u.hash !== '' || u.username !== '' || u.password !== '';
    return `${u.protocol}//${u.host}${u.pathname}${hadMore ? `?${HIDDEN}` : ''}${tail}`;
  } catch {
    return `${scheme}://${HIDDEN}${tail}`;
  }
}

/**
 * `text` with every secret in it hidden (`[hidden]`), then made printable (shared/printable.ts:
 * control characters and bidirectional overrides escaped, so a line stays one line):
 * - each of `known` (the configured password and API key, tokens held: values the process has in
 *   clear; those shorter than 4 characters are not searched for, as they would hide ordinary words),
 * - URLs' queries, fragments and user info (presigned URLs keep host and path only),
 * - `Bearer …`/`Basic …` values, JSON Web Tokens,
 * - values named password, secret, token, api key, authorization, signature, credential, sealed…
 *   in `name=value`, `name: value` or JSON `"name": "value"` form.
 * Pure; never throws.
 */
export function scrubSecrets(text: string, known: Iterable<string> = []): string {
  let out = text;
  // Longest first, so a secret that contains another is hidden whole.
  const values = [...new Set([...known].filter((k) => typeof k === 'string' && k.length >= 4))].sort(
    (a, b) => b.length - a.length,
  );
  for (const v of values) out = out.split(v).join(HIDDEN);
  out = out.replace(URL_RE, (_m, scheme: string, rest: string) => urlWithoutSecrets(scheme, rest));
  out = out.replace(AUTH_SCHEME_RE, (_m, scheme: string) => `${scheme} ${HIDDEN}`);
  out = out.replace(JWT_RE, HIDDEN);
  out = out.replace(JSON_PAIR_RE, (_m, head: string) => `${head}"${HIDDEN}"`);
  out = out.replace(PLAIN_PAIR_RE, (_m, name: string, sep: string) => `${name}${sep}${HIDDEN}`);
  return printable(out);
}

/**
 * Whether a settings key names a secret (its value is never written to a report): one the
 * settings table marks secret (report-settings.ts isTableSecret), or, for what the table does not
 * declare (sign-in tokens), a secret's name.
 */
function isSecretKey(key: string): boolean {
  return isTableSecret(key) || new RegExp(`^${SECRET_NAME}$|password|secret|token|api[_-]?key|^sealed`, 'i').test(key);
}

/**
 * A copy of settings data (JSON) with every plain value under a secret's key (isSecretKey: the
 * sealed password and API key, the sealed tokens, …) replaced by `"(set)"` or `"(not set)"`, and
 * every other string scrubbed (scrubSecrets with `known`), for a report. Never throws.
 */
export function settingsWithoutSecrets(value: unknown, known: Iterable<string> = []): unknown {
  const list = [...known];
  const visit = (v: unknown): unknown => {
    if (typeof v === 'string') return scrubSecrets(v, list);
    if (Array.isArray(v)) return v.map(visit);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        // A group under a secret's name (progressTokens) is read into: its own keys say which are secrets.
        Object.entries(v).map(([k, x]) => [
          k,
          isSecretKey(k) && (x === null || typeof x !== 'object')
            ? x === undefined || x === null || x === ''
              ? '(not set)'
              : '(set)'
            : visit(x),
        ]),
      );
    }
    return v;
  };
  return visit(value);
}
