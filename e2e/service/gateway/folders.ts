import { randomBytes } from 'node:crypto';
import type { Router } from '../http-router.js';
import { HttpError, sendJson } from '../http-router.js';
import { accountFromBearer } from './auth.js';
import type { GatewayDeps } from './gateway-deps.js';
import { fail, guard, header, isJson } from './gateway-deps.js';
import type { ProjectStage } from './state.js';

const EXPORT_LINK_DAYS = 7;
const STAGES_ALLOWED_FOR_DESIGN_TIME: readonly ProjectStage[] = ['Setup', 'In-construction', 'Archived'];

/** Registers §4.2 (export default sheets) and §4.3 (latest default design update time). */
export function folderRoutes(router: Router, deps: GatewayDeps): void {
  router.add(
    'GET',
    '/progress/api/external-folders/project-folder-with-default-sheet',
    'project-folder-with-default-sheet',
    async (ctx) => {
      const { account, project } = await guard(deps, ctx, { json: true });
      const requested = ctx.url.searchParams.get('project');
      if (!requested) throw new HttpError(400, fail('project is required'));
      if (requested !== project.id) throw new HttpError(400, fail('Does not have access to the project'));
      const userId = ctx.url.searchParams.get('user');
      const recipient = userId ? deps.store.state.accounts.find((a) => a._id === userId) : account;
      if (!recipient) throw new HttpError(404, fail('User not found'));
      sendJson(ctx.res, 200, {
        success: true,
        message:
          'Project folder with default sheets is being generated. A download link will be emailed when it is ready.',
      });
      // §4.2: the zip is built in the background and the link is emailed; here the email is recorded.
      setImmediate(() => {
        const now = new Date();
        const structures = project.structures.filter((s) => s.designs.some((d) => d.isDefault)).map((s) => s.name);
        deps.store.state.emails.push({
          to: recipient.email,
          userId: recipient._id,
          project: project.id,
          subject: `${project.name}: default capture sheets are ready (${structures.length} structures)`,
          link: `${deps.baseUrl}/downloads/${project.id}/${randomBytes(16).toString('hex')}.zip`,
          sentAt: now.toISOString(),
          expiresAt: new Date(now.getTime() + EXPORT_LINK_DAYS * 86_400_000).toISOString(),
        });
        deps.store.save();
      });
    },
  );

  // §4.3 and its error table (§7): resolved from the projectId query, else x-project-id.
  router.add(
    'GET',
    '/progress/api/external-folders/latest-default-design-update-time',
    'latest-default-design-update-time',
    async (ctx) => {
      const msg = (message: string) => ({ message });
      const account = await accountFromBearer(deps.store, ctx.req.headers.authorization);
      if (!account)
        throw new HttpError(401, msg('Unauthorized: the token is missing, invalid or expired. Sign in again.'));
      const keyProject = deps.store.projectByKey(header(ctx, 'x-api-key'));
      if (!keyProject) throw new HttpError(403, msg('Invalid API key'));
      if (!isJson(ctx)) throw new HttpError(415, msg('content-type must be application/json'));
      // §4.3: projectId is required, and x-project-id with it (the standard set, "all required"): a
      // call without either has no project, 400 as §7 words it; an unknown projectId is 404.
      const queryId = ctx.url.searchParams.get('projectId');
      const headerProject = header(ctx, 'x-project-id');
      if (!queryId || !headerProject) throw new HttpError(400, msg('Does not have access to the project'));
      const project = deps.store.project(queryId);
      if (!project) throw new HttpError(404, msg('Project not found'));
      if (project.id !== keyProject.id || headerProject !== project.id) {
        throw new HttpError(400, msg('Does not have access to the project'));
      }
      if (!STAGES_ALLOWED_FOR_DESIGN_TIME.includes(project.stage)) {
        throw new HttpError(
          403,
          msg(`Access restricted: Project is not in an allowed stage. Current stage: ${project.stage}`),
        );
      }
      const times = project.structures
        .flatMap((s) => s.designs.filter((d) => d.isDefault).map((d) => d.updatedAt))
        .sort();
      sendJson(ctx.res, 200, { success: true, data: { latestDefaultDesignUpdatedAt: times.at(-1) ?? null } });
    },
  );
}
