import { z } from 'zod';
import { serviceUrlProblem } from '../service-url.js';

// The Settings screen's schemas of the IPC contract (shared/ipc.ts re-exports them).

/** A structure or design with the friendly name a person chose for it (ids come out of band). */
export const namedDesign = z.object({ id: z.string().min(1), name: z.string().min(1) });
export const namedStructure = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  designs: z.array(namedDesign),
});
export type NamedStructure = z.infer<typeof namedStructure>;

/** Settings as the renderer sees them: secrets never travel back, only whether they are set. */
export const settingsView = z.object({
  mode: z.enum(['service', 'local']),
  baseUrl: z.string(),
  authUrl: z.string(),
  progressBaseUrl: z.string(),
  projectId: z.string(),
  email: z.string(),
  hasPassword: z.boolean(),
  hasApiKey: z.boolean(),
  concurrency: z.number().int().min(1).max(16),
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

/** Settings as the renderer saves them; an empty or missing secret keeps the stored one. */
// A service address keeps its scheme: `host:8080` parses as a URL whose scheme is the host.
const serviceUrl = z.string().superRefine((v, ctx) => {
  const problem = serviceUrlProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: `This address cannot be used: ${problem}.` });
});
export const settingsInput = z.object({
  baseUrl: serviceUrl,
  authUrl: serviceUrl,
  progressBaseUrl: serviceUrl.or(z.literal('')),
  projectId: z.string().min(1),
  email: z.string().email(),
  password: z.string().optional(),
  apiKey: z.string().optional(),
  concurrency: z.number().int().min(1).max(16),
  structures: z.array(namedStructure),
});
export type SettingsInput = z.infer<typeof settingsInput>;

/**
 * Start at login, minimized to the tray (docs/decisions/login-start.md): whether the app starts
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
 * The update feed in the Settings screen (docs/decisions/updates.md): `feedUrl` the address of
 * the generic provider's folder ('' : updates off) and `status` where updates stand, in a sentence
 * (main/electron/updates.ts updateDetail).
 */
export const updateFeedView = z.object({ feedUrl: z.string(), status: z.string() });
export type UpdateFeedView = z.infer<typeof updateFeedView>;
