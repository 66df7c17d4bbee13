import { z } from 'zod';

// Small schemas the IPC contract's screens share (shared/ipc.ts); not re-exported by it.

/** A queue row id: a whole number of 1 or more. */
export const id = z.number().int().positive();
/** A time as ISO 8601 text. */
export const iso = z.string().min(1);
/** A calendar day, YYYY-MM-DD. */
export const ymd = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date in YYYY-MM-DD form');

/** A queued file's state (main/queue/rows.ts FileState). */
export const fileState = z.enum(['waiting', 'pending', 'uploading', 'paused', 'completed', 'failed', 'cancelled']);
/** A queued capture's state (main/queue/rows.ts CaptureState). */
export const captureState = z.enum([
  'queued',
  'registering',
  'registration_unknown',
  'registered',
  'completed',
  'failed',
  'rejected',
]);
