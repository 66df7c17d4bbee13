import { z } from 'zod';
import type { FaultRegistry } from './faults.js';
import type { ProjectStage, StateStore } from './gateway/state.js';
import type { Router } from './http-router.js';
import { HttpError, readJsonBody, sendJson } from './http-router.js';

const adminFail = (message: string) => ({ success: false, message });
const stageSchema = z.object({ stage: z.enum(['Pre-Setup', 'Setup', 'In-construction', 'Archived', 'Deleted']) });
const touchSchema = z.object({ updatedAt: z.iso.datetime().optional() }).optional();

async function parse<T>(schema: z.ZodType<T>, body: Promise<unknown>): Promise<T> {
  const r = schema.safeParse(await body);
  if (!r.success)
    throw new HttpError(400, adminFail(r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')));
  return r.data;
}

/**
 * The admin interface of the local service, for tests and demos (loopback only, no auth):
 *
 * - `GET /faults`, `POST /faults` (a FaultRuleInput, answers `{ id }`), `DELETE /faults`;
 * - `GET /settings`, `PUT /settings` (FaultSettings: presignExpiresIn s, bandwidthBytesPerSecond, latencyMs, tokenTtlSeconds,
 *   serverSideEncryption, storageRetryAfterSeconds, strictContentType, completeBatchAllParts, statusRead, progressRequiresToken,
 *   partStoreDelayMs, jsonBytesPerSecond, presignQueryPadBytes, bufferingProxy);
 * - `POST /tokens/expire`: every JWT issued so far gets 401 from now on;
 * - `GET /emails`: the export emails of §4.2 (recipient, link, expiresAt);
 * - `POST /projects/:id/stage` `{ stage }`: move a project to another stage;
 * - `POST /projects/:id/designs/:designId/touch` `{ updatedAt? }`: a design changed (default now);
 * - `GET /state`: projects (with API keys), captures and uploads;
 * - `GET /stats`: storage counters (parts stored, parts stored again over an existing copy);
 * - `POST /updates`: publishes a release to the update feed (update-feed-server.ts, `updateAdminRoutes`).
 */
export function adminRoutes(
  router: Router,
  deps: { store: StateStore; faults: FaultRegistry; storageStats: () => Record<string, number> },
): void {
  const { store, faults } = deps;
  router.add('GET', '/stats', 'admin', (ctx) => sendJson(ctx.res, 200, deps.storageStats()));
  router.add('GET', '/faults', 'admin', (ctx) => sendJson(ctx.res, 200, { rules: faults.list() }));
  router.add('POST', '/faults', 'admin', async (ctx) => {
    const body = await readJsonBody(ctx.req, adminFail);
    try {
      sendJson(ctx.res, 201, { id: faults.add(body as never) });
    } catch (err) {
      throw new HttpError(
        400,
        adminFail(
          err instanceof z.ZodError
            ? err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
            : String(err),
        ),
      );
    }
  });
  router.add('DELETE', '/faults', 'admin', (ctx) => {
    faults.clear();
    sendJson(ctx.res, 200, { success: true });
  });
  router.add('GET', '/settings', 'admin', (ctx) => sendJson(ctx.res, 200, faults.settings));
  router.add('PUT', '/settings', 'admin', async (ctx) => {
    const body = await readJsonBody(ctx.req, adminFail);
    try {
      faults.update(body as never);
    } catch (err) {
      throw new HttpError(400, adminFail(String(err)));
    }
    sendJson(ctx.res, 200, faults.settings);
  });
  router.add('POST', '/tokens/expire', 'admin', (ctx) => {
    store.state.tokenGeneration++;
    store.save();
    sendJson(ctx.res, 200, { success: true, tokenGeneration: store.state.tokenGeneration });
  });
  router.add('GET', '/emails', 'admin', (ctx) => sendJson(ctx.res, 200, { emails: store.state.emails }));
  router.add('POST', '/projects/:id/stage', 'admin', async (ctx) => {
    const { stage } = await parse(stageSchema, readJsonBody(ctx.req, adminFail));
    const project = store.project(ctx.params.id);
    if (!project) throw new HttpError(404, adminFail('Project not found'));
    project.stage = stage as ProjectStage;
    store.save({ projects: [project.id] });
    sendJson(ctx.res, 200, { success: true, project: { id: project.id, stage: project.stage } });
  });
  router.add('POST', '/projects/:id/designs/:designId/touch', 'admin', async (ctx) => {
    const body = await parse(touchSchema, readJsonBody(ctx.req, adminFail));
    const design = store
      .project(ctx.params.id)
      ?.structures.flatMap((s) => s.designs)
      .find((d) => d.id === ctx.params.designId);
    if (!design) throw new HttpError(404, adminFail('Design not found'));
    design.updatedAt = body?.updatedAt ?? new Date().toISOString();
    store.save({ projects: [ctx.params.id!] });
    sendJson(ctx.res, 200, { success: true, design });
  });
  router.add('GET', '/state', 'admin', (ctx) =>
    sendJson(ctx.res, 200, {
      projects: store.state.projects,
      captures: store.state.captures,
      uploads: store.state.uploads,
    }),
  );
}
