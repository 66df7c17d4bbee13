import type { LastPlacement, NamedStructure, SettingsInput, SettingsView } from '../../shared/ipc.js';
import { serviceUrlProblem } from '../../shared/service-url.js';

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

/** Settings as stored: secrets only in sealed form. */
export interface StoredSettings {
  mode: 'service' | 'local';
  baseUrl: string;
  authUrl: string;
  progressBaseUrl: string;
  projectId: string;
  email: string;
  sealedPassword?: string;
  sealedApiKey?: string;
  concurrency: number;
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
}

/** The settings with their secrets in clear, for the process that uses them (never sent to the renderer). */
export interface ResolvedSettings extends Omit<StoredSettings, 'sealedPassword' | 'sealedApiKey'> {
  password: string;
  apiKey: string;
}

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

  /** What the renderer may see: everything but the secrets (whether the local service is offered is the app core's to say). */
  view(): Omit<SettingsView, 'localServiceAvailable'> {
    const s = this.stored();
    return {
      mode: s?.mode ?? 'service',
      baseUrl: s?.baseUrl ?? '',
      authUrl: s?.authUrl ?? '',
      progressBaseUrl: s?.progressBaseUrl ?? '',
      projectId: s?.projectId ?? '',
      email: s?.email ?? '',
      hasPassword: Boolean(s?.sealedPassword),
      hasApiKey: Boolean(s?.sealedApiKey),
      concurrency: s?.concurrency ?? 4,
      bandwidthBytesPerSecond: s?.bandwidthBytesPerSecond ?? null,
      bandwidthTimetable: s?.bandwidthTimetable ?? null,
      structures: s?.structures ?? [],
      encryptionAvailable: this.box.available(),
      configured: Boolean(
        s && (s.mode === 'local' || (s.sealedPassword && s.sealedApiKey && s.baseUrl && s.projectId)),
      ),
    };
  }

  /** The settings with secrets unsealed, or undefined when not configured. Throws NoSecureStorageError if they cannot be unsealed. */
  resolved(): ResolvedSettings | undefined {
    const s = this.stored();
    if (!s?.sealedPassword || !s.sealedApiKey) return undefined;
    if (!this.box.available()) throw new NoSecureStorageError();
    const { sealedPassword, sealedApiKey, ...rest } = s;
    return { ...rest, password: this.box.decrypt(sealedPassword), apiKey: this.box.decrypt(sealedApiKey) };
  }

  /**
   * Merges input into the stored settings (an empty secret keeps the stored one) and returns what
   * would be stored, without storing it: `commit` stores it. Throws NoSecureStorageError when a
   * secret is given and cannot be sealed, and Error when a secret is missing altogether or an
   * address lacks its http(s):// scheme.
   */
  prepare(input: SettingsInput): { next: StoredSettings; resolved: ResolvedSettings } {
    const prev = this.stored();
    // Refused when set, not at the first upload; the IPC schema says the same at the door.
    for (const [name, url] of [
      ['capture gateway', input.baseUrl],
      ['sign-in', input.authUrl],
      ['progress records', input.progressBaseUrl],
    ] as const) {
      const problem = url === '' && name === 'progress records' ? undefined : serviceUrlProblem(url);
      if (problem) throw new Error(`The ${name} address cannot be used: ${problem}.`);
    }
    if (!this.box.available()) throw new NoSecureStorageError();
    const sealedPassword = input.password ? this.box.encrypt(input.password) : prev?.sealedPassword;
    const sealedApiKey = input.apiKey ? this.box.encrypt(input.apiKey) : prev?.sealedApiKey;
    if (!sealedPassword) throw new Error('Enter the account password.');
    if (!sealedApiKey) throw new Error('Enter the project API key.');
    const next: StoredSettings = {
      mode: 'service',
      baseUrl: input.baseUrl.replace(/\/+$/, ''),
      authUrl: input.authUrl.replace(/\/+$/, ''),
      progressBaseUrl: input.progressBaseUrl.replace(/\/+$/, ''),
      projectId: input.projectId.trim(),
      email: input.email.trim(),
      sealedPassword,
      sealedApiKey,
      concurrency: input.concurrency,
      bandwidthBytesPerSecond: prev?.bandwidthBytesPerSecond ?? null,
      bandwidthTimetable: prev?.bandwidthTimetable ?? null,
      pausedUntil: prev?.pausedUntil ?? null,
      structures: input.structures,
    };
    const { sealedPassword: _p, sealedApiKey: _k, ...rest } = next;
    return {
      next,
      resolved: {
        ...rest,
        password: input.password || this.box.decrypt(sealedPassword),
        apiKey: input.apiKey || this.box.decrypt(sealedApiKey),
      },
    };
  }

  /** Stores prepared settings. */
  commit(next: StoredSettings): void {
    this.store.set(KEY, next);
  }

  /**
   * Switches to the local test service. Its credentials are its own, random per data folder and
   * read from it at every start, so nothing secret is stored for it.
   */
  useLocal(structures: NamedStructure[], concurrency: number): void {
    const { bandwidthBytesPerSecond = null, bandwidthTimetable = null, pausedUntil = null } = this.stored() ?? {};
    this.store.set(KEY, {
      mode: 'local',
      baseUrl: '',
      authUrl: '',
      progressBaseUrl: '',
      projectId: '',
      email: '',
      concurrency,
      bandwidthBytesPerSecond,
      bandwidthTimetable,
      pausedUntil,
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
