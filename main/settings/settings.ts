import type { LastPlacement, NamedStructure, SettingsInput, SettingsView } from '../../shared/ipc.js';
import type {
  AppSecretKey,
  EngineSettings,
  PlainAppKey,
  SettingKeyIn,
  SettingValue,
} from '../../shared/settings-table.js';
import {
  SETTINGS,
  engineSettings,
  hasName,
  isSecretSetting,
  labelInSentence,
  normalText,
  sealedName,
  settingProblem,
  settingSpec,
  settingsIn,
} from '../../shared/settings-table.js';

/**
 * Encryption for secrets at rest: Electron's safeStorage in the app (OS keychain / DPAPI /
 * libsecret), a stand-in in tests. Values are base64 of the encrypted bytes.
 */
export interface SecretBox {
  available(): boolean;
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

/** Where settings are kept: electron-store in the app, memory in tests. */
export interface KeyValueStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

/**
 * Settings as stored: the table's settings that apply in the app (shared/settings-table.ts), each
 * absent until first saved (its default then holds), secrets only in sealed form
 * (`sealedPassword`); and the app's own state beside them.
 */
export type StoredSettings = {
  mode: 'service' | 'local';
  /** Bytes per second for all uploads together; absent or null for no limit. */
  bandwidthBytesPerSecond?: number | null;
  /** A daily timetable of limits (`08:00,512k 19:00,off`, shared/bandwidth.ts) that overrides the single limit; absent or null for none. */
  bandwidthTimetable?: string | null;
  /**
   * "Pause until" as earlier versions kept it (ISO 8601), or absent/null. The hold now lives in the
   * queue (QueueHold); UploadLimits.attach carries a stored time over once and clears it here.
   */
  pausedUntil?: string | null;
  structures: NamedStructure[];
} & { [K in PlainAppKey]?: SettingValue<K> } & { [K in AppSecretKey as `sealed${Capitalize<K>}`]?: string };

/** The app's settings in force (defaults filled in), secrets in clear, for the process that uses them (never sent to the renderer). */
export type ResolvedSettings = Pick<
  StoredSettings,
  'mode' | 'structures' | 'bandwidthBytesPerSecond' | 'bandwidthTimetable' | 'pausedUntil'
> & { [K in SettingKeyIn<'app'>]: SettingValue<K> };

/** Encryption is unavailable: secrets are refused rather than stored in clear. */
export class NoSecureStorageError extends Error {
  override readonly name = 'NoSecureStorageError';
  constructor() {
    super(
      'This computer offers no secure storage for passwords (on Linux: no keyring such as GNOME Keyring or KWallet is running), ' +
        'so the password and API key are not saved: they would be in clear text. Start a keyring and try again.',
    );
  }
}

const KEY = 'settings';
/** The table's settings the app keeps: not secret, secret, and those that must be given. */
const PLAIN_KEYS = settingsIn('app').filter((k): k is PlainAppKey => !isSecretSetting(k));
const SECRET_KEYS = settingsIn('app').filter((k): k is AppSecretKey => isSecretSetting(k));
const REQUIRED_KEYS = settingsIn('app').filter((k) => 'required' in SETTINGS[k]);

/** The app's own state kept beside the table's settings. */
function kept(s: StoredSettings): Omit<ResolvedSettings, SettingKeyIn<'app'>> {
  const { mode, structures, bandwidthBytesPerSecond, bandwidthTimetable, pausedUntil } = s;
  return { mode, structures, bandwidthBytesPerSecond, bandwidthTimetable, pausedUntil };
}
/** Project id → where its previous card was registered; kept apart so saving settings leaves it. */
const PLACEMENTS = 'lastPlacements';

/** Reads and writes the app's settings, sealing the password and API key with the SecretBox. */
export class SettingsRepository {
  constructor(
    private readonly store: KeyValueStore,
    private readonly box: SecretBox,
  ) {}

  /** The stored settings, or undefined before the first save. */
  stored(): StoredSettings | undefined {
    return this.store.get(KEY) as StoredSettings | undefined;
  }

  /** The app's settings in force, not secret: each as stored, else its default (shared/settings-table.ts). */
  values(): { [K in PlainAppKey]: SettingValue<K> } {
    const s = this.stored();
    return Object.fromEntries(PLAIN_KEYS.map((k) => [k, s?.[k] ?? SETTINGS[k].default])) as {
      [K in PlainAppKey]: SettingValue<K>;
    };
  }

  /** The engine's options that are settings, as one named object (shared/settings-table.ts engineSettings). */
  engineSettings(): EngineSettings {
    return engineSettings(this.values());
  }

  /** What the renderer may see: everything but the secrets (whether the local service is offered is the app core's to say). */
  view(): Omit<SettingsView, 'localServiceAvailable'> {
    const s = this.stored();
    const has = Object.fromEntries(SECRET_KEYS.map((k) => [hasName(k), Boolean(s?.[sealedName(k)])])) as {
      [K in AppSecretKey as `has${Capitalize<K>}`]: boolean;
    };
    return {
      mode: s?.mode ?? 'service',
      ...this.values(),
      ...has,
      bandwidthBytesPerSecond: s?.bandwidthBytesPerSecond ?? null,
      bandwidthTimetable: s?.bandwidthTimetable ?? null,
      structures: s?.structures ?? [],
      encryptionAvailable: this.box.available(),
      configured: Boolean(
        s &&
          (s.mode === 'local' ||
            REQUIRED_KEYS.every((k) => (isSecretSetting(k) ? s[sealedName(k)] : s[k as PlainAppKey]))),
      ),
    };
  }

  /** The settings with secrets unsealed, or undefined when not configured. Throws NoSecureStorageError if they cannot be unsealed. */
  resolved(): ResolvedSettings | undefined {
    const s = this.stored();
    if (!s || SECRET_KEYS.some((k) => !s[sealedName(k)])) return undefined;
    if (!this.box.available()) throw new NoSecureStorageError();
    const secrets = Object.fromEntries(SECRET_KEYS.map((k) => [k, this.box.decrypt(s[sealedName(k)]!)])) as {
      [K in AppSecretKey]: string;
    };
    return { ...kept(s), ...this.values(), ...secrets };
  }

  /**
   * Merges input into the stored settings and returns what would be stored, without storing it:
   * `commit` stores it. Each setting of the table is checked by its rule (settingProblem) and kept
   * normalized (trimmed, addresses without trailing slashes); one left out keeps its stored value,
   * an empty secret the stored one. Throws NoSecureStorageError when secrets cannot be sealed, and
   * Error naming the setting and the fix when a value cannot be used or a secret is missing.
   */
  prepare(input: SettingsInput): { next: StoredSettings; resolved: ResolvedSettings } {
    const prev = this.stored();
    const given = input as Partial<Record<SettingKeyIn<'app'>, string | number>>;
    const values: Record<string, unknown> = {};
    // Refused when set, not at the first upload; the IPC schema says the same at the IPC dispatch.
    for (const k of PLAIN_KEYS) {
      const v = given[k];
      const value =
        v === undefined
          ? (prev?.[k] ?? SETTINGS[k].default)
          : typeof v === 'string'
            ? normalText(settingSpec(k), v)
            : v;
      const problem = settingProblem(k, value);
      if (problem) throw new Error(`The ${labelInSentence(k)} cannot be used: ${problem}.`);
      values[k] = value;
    }
    if (!this.box.available()) throw new NoSecureStorageError();
    const sealed: Record<string, string> = {};
    const clear: Record<string, string> = {};
    for (const k of SECRET_KEYS) {
      const v = given[k];
      const seal = typeof v === 'string' && v !== '' ? this.box.encrypt(v) : prev?.[sealedName(k)];
      if (!seal) throw new Error(`Enter the ${labelInSentence(k)}.`);
      sealed[sealedName(k)] = seal;
      clear[k] = typeof v === 'string' && v !== '' ? v : this.box.decrypt(seal);
    }
    const next = {
      mode: 'service',
      ...values,
      ...sealed,
      bandwidthBytesPerSecond: prev?.bandwidthBytesPerSecond ?? null,
      bandwidthTimetable: prev?.bandwidthTimetable ?? null,
      pausedUntil: prev?.pausedUntil ?? null,
      structures: input.structures,
    } as StoredSettings;
    return {
      next,
      resolved: {
        ...kept(next),
        ...(values as { [K in PlainAppKey]: SettingValue<K> }),
        ...(clear as { [K in AppSecretKey]: string }),
      },
    };
  }

  /** Stores prepared settings. */
  commit(next: StoredSettings): void {
    this.store.set(KEY, next);
  }

  /**
   * Switches to the local test service. Its credentials are its own, random per data folder and
   * read from it at every start, so nothing secret is stored for it: its connection replaces the
   * table's text settings (addresses, account, project; `projectName` is its project's name, as
   * its ready info hands it), while the numbers of how uploads run (concurrency, …) and the
   * upload limits are kept.
   */
  useLocal(structures: NamedStructure[], projectName = ''): void {
    const prev = this.stored();
    const numbers = Object.fromEntries(
      PLAIN_KEYS.filter((k) => settingSpec(k).type === 'integer' && prev?.[k] !== undefined).map((k) => [k, prev![k]]),
    );
    const text = Object.fromEntries(PLAIN_KEYS.filter((k) => settingSpec(k).type !== 'integer').map((k) => [k, '']));
    this.store.set(KEY, {
      mode: 'local',
      ...text,
      ...numbers,
      projectName,
      bandwidthBytesPerSecond: prev?.bandwidthBytesPerSecond ?? null,
      bandwidthTimetable: prev?.bandwidthTimetable ?? null,
      pausedUntil: prev?.pausedUntil ?? null,
      structures,
    } satisfies StoredSettings);
  }

  /** Where the previous card of `project` was registered, or null. */
  lastPlacement(project: string): LastPlacement | null {
    return (this.store.get(PLACEMENTS) as Record<string, LastPlacement> | undefined)?.[project] ?? null;
  }

  /** Remembers where a card of `project` was registered, for the next card to offer it. */
  rememberPlacement(project: string, placement: LastPlacement): void {
    const all = (this.store.get(PLACEMENTS) as Record<string, LastPlacement> | undefined) ?? {};
    this.store.set(PLACEMENTS, { ...all, [project]: placement });
  }

  /** Keeps the upload limits with the other settings: a single limit (bytes per second, or null) and a timetable (its text, or null). */
  setBandwidth(bandwidthBytesPerSecond: number | null, bandwidthTimetable: string | null = null): void {
    const s = this.stored();
    if (s) this.store.set(KEY, { ...s, bandwidthBytesPerSecond, bandwidthTimetable });
  }

  /** Keeps the legacy "pause until" time (ISO 8601), or null to clear it once carried into the queue. */
  setPausedUntil(pausedUntil: string | null): void {
    const s = this.stored();
    if (s) this.store.set(KEY, { ...s, pausedUntil });
  }
}
