/**
 * Why `value` cannot be a service address ({base_url}, {auth_url}, {progress_base_url} of the
 * interfaces), in words that name the fix, or undefined when it can. An address needs its scheme:
 * `capture.example.com/gateway` or `127.0.0.1:8080` would otherwise be read as a relative path or
 * as a URL whose scheme is the host, and every call would fail far from the cause.
 */
export function serviceUrlProblem(value: string): string | undefined {
  const example = 'for example https://capture.example.com/gateway';
  if (!/^https?:\/\//i.test(value.trim())) return `it must start with https:// (or http://), ${example}`;
  try {
    const u = new URL(value.trim());
    if (!u.hostname) return `it names no host, ${example}`;
  } catch {
    return `it is not a web address, ${example}`;
  }
  return undefined;
}
