import { ISO_TIMES } from '../../shared/night-summary.js';

/**
 * The locale the CLI writes times in, from the environment as POSIX orders it: `LC_ALL`, then
 * `LC_TIME`, then `LANG` (`de_DE.UTF-8` → `de-DE`, its codeset and modifier dropped). None set,
 * `C` or `POSIX` (a service's or container's bare environment), or a name the runtime does not
 * know: ISO_TIMES, 24-hour ISO 8601, rather than the runtime's own default (en-US, `12:03 AM`),
 * so the CLI and the window agree on "00:03".
 */
export function cliLocale(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const raw = [env.LC_ALL, env.LC_TIME, env.LANG].find((v) => v !== undefined && v !== '') ?? '';
  const name = raw.split(/[.@]/)[0]!;
  if (name === '' || name === 'C' || name === 'POSIX') return ISO_TIMES;
  const tag = name.replace(/_/g, '-');
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([tag]).length ? tag : ISO_TIMES;
  } catch {
    // Not a well-formed BCP 47 tag once its underscores are dashes.
    return ISO_TIMES;
  }
}
