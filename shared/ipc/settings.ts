import { z } from 'zod';
import type {
  AppSecretKey,
  PlainAppKey,
  RequiredKey,
  SettingKey,
  SettingKeyIn,
  SettingValue,
} from '../settings-table.js';
import {
  hasName,
  isSecretSetting,
  labelInSentence,
  settingProblem,
  settingSpec,
  settingsIn,
} from '../settings-table.js';

// The Settings screen's schemas of the IPC contract (shared/ipc.ts re-exports them).

/** A structure or design with the friendly name a person chose for it (ids come out of band). */
const namedDesign = z.object({ id: z.string().min(1), name: z.string().min(1) });
export const namedStructure = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  designs: z.array(namedDesign),
});
export type NamedStructure = z.infer<typeof namedStructure>;

/** A setting's value as the window sees it: a number within its bounds, or text. */
function viewSchema(key: SettingKey): z.ZodType {
  const s = settingSpec(key);
  return s.type === 'integer' ? z.number().int().min(s.min).max(s.max) : z.string();
}

/**
 * A setting's value as the window saves it, checked by the table's own rule (settingProblem):
 * a required one must be given; any other may be left out, and the value kept stays.
 */
function inputSchema(key: SettingKey): z.ZodType {
  const s = settingSpec(key);
  if (s.secret) return z.string().optional();
  const base = s.type === 'integer' ? z.number() : z.string();
  const checked = base.superRefine((v, ctx) => {
    const problem = settingProblem(key, v);
    if (problem) ctx.addIssue({ code: 'custom', message: `The ${labelInSentence(key)} cannot be used: ${problem}.` });
  });
  return 'required' in s && s.required ? checked : checked.optional();
}

const plainAppKeys = settingsIn('app').filter((k): k is PlainAppKey => !isSecretSetting(k));
const appSecretKeys = settingsIn('app').filter((k): k is AppSecretKey => isSecretSetting(k));

/** The table's settings in the view: each value, and for each secret whether it is set. */
const viewSettings = {
  ...Object.fromEntries(plainAppKeys.map((k) => [k, viewSchema(k)])),
  ...Object.fromEntries(appSecretKeys.map((k) => [hasName(k), z.boolean()])),
} as { [K in PlainAppKey]: z.ZodType<SettingValue<K>> } & {
  [K in AppSecretKey as `has${Capitalize<K>}`]: z.ZodBoolean;
};

/** The settings the input must carry. */
type RequiredAppKey = Extract<PlainAppKey, RequiredKey>;

/** The table's settings in the input: the required ones, the others optional, each secret optional (empty keeps the stored one). */
const inputSettings = Object.fromEntries(settingsIn('app').map((k) => [k, inputSchema(k)])) as {
  [K in RequiredAppKey]: z.ZodType<SettingValue<K>>;
} & { [K in Exclude<SettingKeyIn<'app'>, RequiredAppKey>]: z.ZodOptional<z.ZodType<SettingValue<K>>> };

/**
 * Settings as the renderer sees them: the table's settings that apply in the app
 * (shared/settings-table.ts; secrets never travel back, only whether they are set), and the
 * app's own state beside them.
 */
export const settingsView = z.object({
  mode: z.enum(['service', 'local']),
  ...viewSettings,
  /** Upload bandwidth limit in bytes per second for all files together, or null for none. */
  bandwidthBytesPerSecond: z.number().int().positive().nullable(),
  /** A daily timetable of limits (`08:00,512k 19:00,off`, shared/bandwidth.ts) in force instead of the single limit, or null. */
  bandwidthTimetable: z.string().nullable(),
  structures: z.array(namedStructure),
  /** False when the OS offers no encryption for secrets (they are then refused, not stored in clear). */
  encryptionAvailable: z.boolean(),
  configured: z.boolean(),
  /** Whether the local test service can be started here (a checkout of the repository; never the packaged app). */
  localServiceAvailable: z.boolean(),
});
export type SettingsView = z.infer<typeof settingsView>;

/**
 * Settings as the renderer saves them: the table's settings that apply in the app, each checked
 * by the table's rule (an address keeps its scheme: `host:8080` parses as a URL whose scheme is
 * the host); an empty or missing secret keeps the stored one, a missing optional setting the
 * value kept. The named structures beside them.
 */
export const settingsInput = z.object({
  ...inputSettings,
  structures: z.array(namedStructure),
});
export type SettingsInput = z.infer<typeof settingsInput>;

/**
 * Start at login, minimized to the tray (docs/decisions/0018-login-start.md): whether the app starts
 * at login now (`enabled`), the person's own choice (`choice`; null: the default, which is on
 * while the queue holds unfinished work), whether the queue holds such work, whether this system
 * offers it at all, and why the last change could not be made (or null).
 */
export const loginStartView = z.object({
  enabled: z.boolean(),
  choice: z.boolean().nullable(),
  unfinishedWork: z.boolean(),
  supported: z.boolean(),
  error: z.string().nullable(),
});
export type LoginStartView = z.infer<typeof loginStartView>;

/**
 * The update feed in the Settings screen (docs/decisions/0017-updates.md): `feedUrl` the address of
 * the signed feed's folder ('' : updates off), `status` where updates stand, in a sentence
 * (main/updates/updates.ts updateDetail), and `state` (UpdateStatus's), so the screen knows a
 * check or download is under way and asks again until it settles.
 */
export const updateFeedView = z.object({
  feedUrl: z.string(),
  status: z.string(),
  state: z.enum(['off', 'idle', 'checking', 'downloading', 'ready', 'failed']),
});
export type UpdateFeedView = z.infer<typeof updateFeedView>;
