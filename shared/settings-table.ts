import { serviceUrlProblem } from './service-url.js';

// The user-tunable settings, each declared once (CONVENTIONS.md, "Settings, declared once"; as VS
// Code's configuration registry declares its properties). Everything else is derived from this
// table: the IPC schemas (shared/ipc/settings.ts), the settings store (main/settings/settings.ts),
// the Settings screen's fields (renderer/src/components/SettingFields.tsx), the CLI's flags and
// `--help` (main/cli/setting-flags.ts), the support report's settings
// (main/support/report-settings.ts) and the engine's options (`engineSettings`; their order
// against a host's own options: docs/engine.md, "Where the engine's options come from"). It imports no zod and nothing heavy: the CLI's
// `--help` and `status` read it and promise to start without zod (main/cli/zod-free.test.ts).

/** Where a setting applies: the desktop app (stored, on the Settings screen) and/or the command line (flag and variable). */
export type SettingPlace = 'app' | 'cli';

/** What every setting declares, whatever its type. */
interface SettingBase {
  /** The field's name on the Settings screen, a short noun phrase ("Capture gateway address"). */
  label: string;
  /** One line for `--help` and the screen's hint: what it is, in the interfaces' words ({base_url}). */
  help: string;
  /** The command line's flag with its value's name, as commander takes it (`--base-url <url>`); absent: not on the command line. */
  flag?: `--${string} <${string}>`;
  /** The environment variable the command line falls back to when the flag is not given. */
  env?: `CAPTURE_${string}`;
  /** Where it applies. */
  places: readonly SettingPlace[];
  /**
   * A secret (a password, an API key): stored only sealed (`sealed<Key>`), never sent to the
   * window (which sees `has<Key>`), shown in a report only as "(set)" or "(not set)".
   */
  secret?: true;
}

/** A text value: plain text, a service address (http(s):// with a host), an email address, or a folder. */
interface TextSetting extends SettingBase {
  type: 'text' | 'url' | 'email' | 'path';
  /** Must be given (not empty) for the uploader to work. */
  required?: true;
  /** The longest value accepted, in characters. */
  maxLength?: number;
  /** The value when none is given ('' : none). */
  default: string;
}

/** A whole number within `min`–`max`, in `unit`. */
interface IntegerSetting extends SettingBase {
  type: 'integer';
  min: number;
  max: number;
  default: number;
  /** What a value counts, as the screen and `--help` say it after the number ("s", "parts"). */
  unit: string;
  /**
   * The engine's option this setting is (main/engine/events.ts EngineOptions), and the factor from
   * the setting's unit to the option's (1000: seconds to ms). Absent: not an engine option.
   */
  engine?: { option: string; scale: number };
}

/** An upload limit as people write it (shared/bandwidth.ts: `512k`, or a timetable `08:00,512k 19:00,off`); '' : none. */
interface RateSetting extends SettingBase {
  type: 'rate';
  default: '';
}

/** One setting's declaration. */
export type SettingSpec = TextSetting | IntegerSetting | RateSetting;

/**
 * The settings, keyed by their name in the store, the IPC contract and the engine's options
 * (their order is the screen's and `--help`'s). The local test service, the named structures
 * and the card library's settings are kept apart (main/settings/library-settings.ts); the app's
 * upload limit is set from the queue screen (main/engine/scheduling/upload-limits.ts).
 */
export const SETTINGS = {
  baseUrl: {
    type: 'url',
    required: true,
    default: '',
    label: 'Capture gateway address',
    help: 'capture gateway {base_url}',
    flag: '--base-url <url>',
    env: 'CAPTURE_BASE_URL',
    places: ['app', 'cli'],
  },
  authUrl: {
    type: 'url',
    required: true,
    default: '',
    label: 'Sign-in address',
    help: 'sign-in service {auth_url}',
    flag: '--auth-url <url>',
    env: 'CAPTURE_AUTH_URL',
    places: ['app', 'cli'],
  },
  progressBaseUrl: {
    type: 'url',
    default: '',
    label: 'Progress records address',
    help: 'progress records {progress_base_url}, for the progress and assets commands',
    flag: '--progress-url <url>',
    env: 'CAPTURE_PROGRESS_URL',
    places: ['app', 'cli'],
  },
  projectId: {
    type: 'text',
    required: true,
    default: '',
    label: 'Project id',
    help: 'project id',
    flag: '--project-id <id>',
    env: 'CAPTURE_PROJECT_ID',
    places: ['app', 'cli'],
  },
  projectName: {
    type: 'text',
    maxLength: 200,
    default: '',
    label: 'Project name (optional: as the office calls it, printed on the month report)',
    help: "the project's name as its people call it (neither interface gives one)",
    places: ['app'],
  },
  apiKey: {
    type: 'text',
    required: true,
    secret: true,
    default: '',
    label: 'API key',
    help: 'project API key; prefer the variable: flags show in process lists',
    flag: '--api-key <key>',
    env: 'CAPTURE_API_KEY',
    places: ['app', 'cli'],
  },
  email: {
    type: 'email',
    required: true,
    default: '',
    label: 'Email',
    help: 'account email',
    flag: '--email <email>',
    env: 'CAPTURE_EMAIL',
    places: ['app', 'cli'],
  },
  password: {
    type: 'text',
    required: true,
    secret: true,
    default: '',
    label: 'Password',
    help: 'account password; prefer the variable',
    flag: '--password <password>',
    env: 'CAPTURE_PASSWORD',
    places: ['app', 'cli'],
  },
  dataDir: {
    type: 'path',
    default: '~/.capture-uploader',
    label: 'Queue folder',
    help: 'folder of the upload queue',
    flag: '--data-dir <dir>',
    env: 'CAPTURE_DATA_DIR',
    places: ['cli'],
  },
  concurrency: {
    type: 'integer',
    min: 1,
    max: 16,
    default: 4,
    unit: 'parts',
    label: 'Parts uploaded at once',
    help: 'part uploads at once, shared by all files',
    flag: '--concurrency <n>',
    env: 'CAPTURE_CONCURRENCY',
    places: ['app', 'cli'],
    engine: { option: 'concurrency', scale: 1 },
  },
  stallTimeout: {
    type: 'integer',
    // At most 50 s: the link is told silent after one stall timeout, and "Waiting for storage"
    // is promised within 60 s of its last sign of life (docs/decisions/0012-silent-link-stall-timeout.md).
    min: 10,
    max: 50,
    default: 30,
    unit: 's',
    label: 'Stall timeout (no byte sent for this long)',
    help: 'a part that moves no byte this long is given up and sent again; the link then counts as silent',
    flag: '--stall-timeout <s>',
    env: 'CAPTURE_STALL_TIMEOUT',
    places: ['app', 'cli'],
    engine: { option: 'stallTimeoutMs', scale: 1000 },
  },
  bandwidth: {
    type: 'rate',
    default: '',
    label: 'Upload limit',
    help: 'upload limit: 512k, 2M (KiB/s, MiB/s), 8Mbit, or a daily timetable "08:00,512k 19:00,off"; at least 8k',
    flag: '--bandwidth <rate>',
    env: 'CAPTURE_BANDWIDTH',
    places: ['cli'],
  },
} as const satisfies Record<string, SettingSpec>;

/** A setting's name. */
export type SettingKey = keyof typeof SETTINGS;

type Spec<K extends SettingKey> = (typeof SETTINGS)[K];

/** A setting's value type: a number for integers, else text. */
export type SettingValue<K extends SettingKey> = Spec<K> extends { type: 'integer' } ? number : string;

/** The settings that apply at `P`. */
export type SettingKeyIn<P extends SettingPlace> = {
  [K in SettingKey]: P extends Spec<K>['places'][number] ? K : never;
}[SettingKey];

/** The secret settings. */
export type SecretKey = { [K in SettingKey]: Spec<K> extends { secret: true } ? K : never }[SettingKey];

/** Values of every setting, by name. */
export type SettingValues = { [K in SettingKey]: SettingValue<K> };

/** The settings the app keeps that are not secret: their values travel to the window. */
export type PlainAppKey = Exclude<SettingKeyIn<'app'>, SecretKey>;
/** The secrets the app keeps: sealed in the store, only whether each is set sent to the window. */
export type AppSecretKey = Extract<SettingKeyIn<'app'>, SecretKey>;
/** The settings that must be given (not empty) for the uploader to work. */
export type RequiredKey = { [K in SettingKey]: Spec<K> extends { required: true } ? K : never }[SettingKey];

/**
 * The engine's options that are settings, by option name (`concurrency`: parts at once), in the
 * option's unit: what `engineSettings` hands the engine as one named object.
 */
export type EngineSettings = {
  [K in SettingKey as Spec<K> extends { engine: { option: infer O extends string } } ? O : never]: number;
};

/** The settings' names in the table's order. */
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** The declaration of `key` (as the wider SettingSpec, for code that handles every type). */
export function settingSpec(key: SettingKey): SettingSpec {
  return SETTINGS[key];
}

/** The names of the settings that apply at `place`, in the table's order. */
export function settingsIn<P extends SettingPlace>(place: P): SettingKeyIn<P>[] {
  return SETTING_KEYS.filter((k) =>
    (SETTINGS[k].places as readonly SettingPlace[]).includes(place),
  ) as SettingKeyIn<P>[];
}

/** Whether `key` is a secret (the table's own mark). */
export function isSecretSetting(key: string): key is SecretKey {
  return key in SETTINGS && (SETTINGS[key as SettingKey] as SettingSpec).secret === true;
}

/** `sealedPassword` for `password`: the stored name of a secret's sealed form. */
export function sealedName(key: SecretKey): `sealed${Capitalize<SecretKey>}` {
  return `sealed${key[0]!.toUpperCase()}${key.slice(1)}` as `sealed${Capitalize<SecretKey>}`;
}

/** `hasPassword` for `password`: the window's name for whether a secret is set. */
export function hasName(key: SecretKey): `has${Capitalize<SecretKey>}` {
  return `has${key[0]!.toUpperCase()}${key.slice(1)}` as `has${Capitalize<SecretKey>}`;
}

/** A setting's label as it reads inside a sentence: "the capture gateway address", "the API key". */
export function labelInSentence(key: SettingKey): string {
  const l = settingSpec(key).label;
  return /^[A-Z][a-z]/.test(l) ? `${l[0]!.toLowerCase()}${l.slice(1)}` : l;
}

/** A bound as words: "a whole number from 1 to 16". */
function integerWords(s: IntegerSetting): string {
  return `a whole number from ${s.min} to ${s.max}${s.unit ? ` (${s.unit})` : ''}`;
}

/**
 * Why `value` cannot be the setting `key`, in words that name the fix, or undefined when it can.
 * '' passes for a setting that is not required (none given). Rates are checked where they are
 * parsed (shared/bandwidth.ts parseBandwidth), which this module does not load.
 */
export function settingProblem(key: SettingKey, value: unknown): string | undefined {
  const s = settingSpec(key);
  if (s.type === 'integer')
    return typeof value === 'number' && Number.isInteger(value) && value >= s.min && value <= s.max
      ? undefined
      : `it must be ${integerWords(s)}`;
  if (typeof value !== 'string') return 'it must be text';
  if (value.trim() === '') return s.type !== 'rate' && s.required ? 'it must be given' : undefined;
  if (s.type === 'url') return serviceUrlProblem(value);
  if (s.type === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim()))
    return 'it must be an email address, for example ops@example.com';
  if (s.type !== 'rate' && s.maxLength !== undefined && value.length > s.maxLength)
    return `it must be at most ${s.maxLength} characters`;
  return undefined;
}

/**
 * Reads a setting as text gives it (a flag, an environment variable, a form's field): integers
 * parsed, text trimmed and addresses without their trailing slashes. Throws Error naming the
 * setting by `name` (its flag or variable, its label) and the fix.
 */
export function parseSetting<K extends SettingKey>(key: K, text: string, name: string): SettingValue<K> {
  const s = settingSpec(key);
  const value = s.type === 'integer' ? (/^\s*-?\d+\s*$/.test(text) ? Number(text) : NaN) : normalText(s, text);
  const problem = settingProblem(key, value);
  if (problem) throw new Error(`${name} cannot be used: ${problem}.`);
  return value as SettingValue<K>;
}

/** Text as it is kept: trimmed, and an address without its trailing slashes. */
export function normalText(s: SettingSpec, text: string): string {
  const t = text.trim();
  return s.type === 'url' ? t.replace(/\/+$/, '') : t;
}

/** The line `--help` shows for a setting: its help, its variable, its default and unit. */
export function settingHelpLine(key: SettingKey): string {
  const s = settingSpec(key);
  const notes = [
    s.env,
    s.type === 'integer'
      ? `${s.min}–${s.max}, default ${s.default}${s.unit ? ` ${s.unit}` : ''}`
      : s.default
        ? `default ${s.default}`
        : undefined,
  ].filter(Boolean);
  return notes.length ? `${s.help} (${notes.join('; ')})` : s.help;
}

/**
 * The engine's options that are settings (EngineSettings) as one named object, each in the
 * option's unit, from the settings' values (a setting not given: its default).
 */
export function engineSettings(values: Partial<SettingValues>): EngineSettings {
  const out: Record<string, number> = {};
  for (const k of SETTING_KEYS) {
    const s = settingSpec(k);
    if (s.type === 'integer' && s.engine)
      out[s.engine.option] = ((values[k] as number | undefined) ?? s.default) * s.engine.scale;
  }
  return out as EngineSettings;
}
