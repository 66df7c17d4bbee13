import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import type { SettingKeyIn, SettingValue } from '../../shared/settings-table.js';
import { printable } from '../../shared/printable.js';
import { parseSetting, settingHelpLine, settingProblem, settingSpec, settingsIn } from '../../shared/settings-table.js';

// The command line's settings, as the table declares them (shared/settings-table.ts): each flag
// and its `--help` line, and each value from its flag, else its variable, else its default.
// Loaded by index.ts before any command runs, so it imports neither zod nor got (zod-free.test.ts).

/** The settings the command line takes. */
export type CliKey = SettingKeyIn<'cli'>;

/** The command line's settings in force, by name: each as given, else its default ('' : none). */
export type CliSettings = { [K in CliKey]: SettingValue<K> };

/** The command line's settings that have a flag, in the table's order (`--help`'s). */
const FLAGGED = settingsIn('cli').filter((k) => settingSpec(k).flag !== undefined);

/** The name under which commander keeps `key`'s flag value in `program.opts()` (`--progress-url`: `progressUrl`). */
function flagAttribute(key: CliKey): string {
  return new Option(settingSpec(key).flag!).attributeName();
}

/**
 * Where the value of `key` in force came from, as a person would look for it: its flag when
 * `opts` (commander's `program.opts()`) has it, else its environment variable (`--bandwidth`,
 * `CAPTURE_BANDWIDTH`); undefined when neither gives it.
 */
export function settingSource(
  key: CliKey,
  opts: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const s = settingSpec(key);
  if (s.flag && opts[flagAttribute(key)] !== undefined) return s.flag.split(' ')[0];
  return s.env && env[s.env]?.trim() ? s.env : undefined;
}

/** The setting as a message names it: where it came from and, unless it is a secret, the value given. */
function givenAs(key: CliKey, source: string, text: string): string {
  return settingSpec(key).secret ? source : `${source} ${JSON.stringify(printable(text))}`;
}

/**
 * Adds every setting of the table the command line takes as a global option of `program`, its
 * `--help` line from the table (settingHelpLine). A whole number out of its bounds is a usage
 * error (commander's InvalidArgumentError: exit 2) naming the bounds. Returns `program`.
 */
export function addSettingFlags(program: Command): Command {
  for (const k of FLAGGED) {
    const s = settingSpec(k);
    const option = new Option(s.flag!, settingHelpLine(k));
    if (s.type === 'integer')
      option.argParser((text: string) => {
        const n = /^\s*-?\d+\s*$/.test(text) ? Number(text) : NaN;
        const problem = settingProblem(k, n);
        if (problem) throw new InvalidArgumentError(`${problem[0]!.toUpperCase()}${problem.slice(1)}.`);
        return n;
      });
    program.addOption(option);
  }
  return program;
}

/**
 * The command line's settings from `opts` (commander's `program.opts()`): each from its flag,
 * else its environment variable, else the table's default. Text is trimmed and addresses lose
 * their trailing slashes; one not given stays '' (resolveGatewayConfig says which are missing).
 * Throws Error naming the flag and the variable and the fix when a given value cannot be used.
 */
export function cliSettings(opts: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): CliSettings {
  const out: Record<string, unknown> = {};
  for (const k of settingsIn('cli')) {
    const s = settingSpec(k);
    const flagged = s.flag ? opts[flagAttribute(k)] : undefined;
    const text = typeof flagged === 'string' ? flagged : s.env ? env[s.env] : undefined;
    if (typeof flagged === 'number') out[k] = flagged;
    else if (text === undefined || text.trim() === '') out[k] = s.default;
    else out[k] = parseSetting(k, text, givenAs(k, settingSource(k, opts, env) ?? s.flag ?? k, text));
  }
  return out as CliSettings;
}

/**
 * Each of the command line's settings as given, unchecked (a report shows a value that cannot be
 * used too): its flag, else its variable; when neither gives it, a whole number's default (in
 * force then), else null.
 */
export function givenCliSettings(
  opts: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): Partial<Record<CliKey, unknown>> {
  const out: Partial<Record<CliKey, unknown>> = {};
  for (const k of settingsIn('cli')) {
    const s = settingSpec(k);
    const v = (s.flag ? opts[flagAttribute(k)] : undefined) ?? (s.env ? env[s.env] : undefined);
    out[k] = v ?? (s.type === 'integer' ? s.default : null);
  }
  return out;
}
