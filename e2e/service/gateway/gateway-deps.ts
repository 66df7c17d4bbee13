import type { FaultRegistry } from '../faults.js';
import type { RouteContext } from '../http-router.js';
import { HttpError } from '../http-router.js';
import { accountFromBearer } from './auth.js';
import type { ObjectStorage } from './object-storage.js';
import type { Account, Project, StateStore } from './state.js';

/** Everything the gateway's handlers share. */
export interface GatewayDeps {
  store: StateStore;
  faults: FaultRegistry;
  /** Where the files are kept: the gateway reaches storage only through this port (the AWS SDK behind it). */
  storage: ObjectStorage;
  /** Public address of the gateway ({base_url}), for links it hands out. */
  baseUrl: string;
  /** Part size in bytes given to new uploads (5242880 as in the interface's sample). */
  partSize: number;
}

/** Error body of the capture endpoints (§7: `{ success: false, message }`). */
export const fail = (message: string) => ({ success: false, message });

/**
 * Checks the standard header set of capture-upload-interface.md §4–5 and returns the caller.
 *
 * Order and answers (error bodies beyond §7 are "not shown" there; these are this stand-in's choice):
 * - authorization missing, malformed, expired or revoked: 401 (§7 General);
 * - x-api-key unknown: 403 `Invalid API key`;
 * - x-project-id missing, unknown or not the key's project: 400 `Does not have access to the project`
 *   (the 4.3 wording, reused for every endpoint);
 * - content-type not application/json where `json` is set: 415.
 */
export async function guard(
  deps: GatewayDeps,
  ctx: RouteContext,
  opts: { json: boolean; errorBody?: (m: string) => Record<string, unknown> },
): Promise<{ account: Account; project: Project }> {
  const body = opts.errorBody ?? fail;
  const account = await accountFromBearer(deps.store, ctx.req.headers.authorization);
  if (!account)
    throw new HttpError(401, body('Unauthorized: the token is missing, invalid or expired. Sign in again.'));
  const keyProject = deps.store.projectByKey(header(ctx, 'x-api-key'));
  if (!keyProject) throw new HttpError(403, body('Invalid API key'));
  const project = deps.store.project(header(ctx, 'x-project-id'));
  if (!project || project.id !== keyProject.id) throw new HttpError(400, body('Does not have access to the project'));
  if (opts.json && !isJson(ctx)) throw new HttpError(415, body('content-type must be application/json'));
  return { account, project };
}

/** A single-valued request header, or undefined. */
export function header(ctx: RouteContext, name: string): string | undefined {
  const v = ctx.req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Whether the request declares a JSON body (`application/json`, any parameters). */
export function isJson(ctx: RouteContext): boolean {
  return /^application\/json\b/i.test(header(ctx, 'content-type') ?? '');
}

/** Rounds a percentage to two decimals. */
export const pct = (part: number, whole: number) => (whole === 0 ? 100 : Math.round((part / whole) * 10_000) / 100);
