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

/**
 * Why `value` cannot be the update feed's address (the folder an electron-builder generic provider
 * publishes to, docs/decisions/0017-updates.md), in words that name the fix, or undefined when it can:
 * a web address (serviceUrlProblem) over https, since the installer it names is run; plain http
 * only to this computer (localhost, 127.0.0.0/8, ::1), for a feed served while testing.
 */
export function updateFeedProblem(value: string): string | undefined {
  const problem = serviceUrlProblem(value);
  if (problem)
    return problem.replace('https://capture.example.com/gateway', 'https://updates.example.com/capture-uploader');
  const u = new URL(value.trim());
  const local = u.hostname === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(u.hostname) || u.hostname === '[::1]';
  if (u.protocol === 'http:' && !local)
    return 'it must start with https:// (plain http:// only to this computer, such as http://localhost:8080): an update is a program this computer runs';
  return undefined;
}
