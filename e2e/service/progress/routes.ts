import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { FaultRegistry } from '../faults.js';
import { accountFromBearer, issueToken, findAccount } from '../gateway/auth.js';
import type { StateStore } from '../gateway/state.js';
import { newId } from '../gateway/state.js';
import type { RouteContext, Router } from '../http-router.js';
import { HttpError, readJsonBody, sendJson } from '../http-router.js';

/** Error body of progress-records-interface.md §7: `{ status: false, message }`. */
export const progressFail = (message: string) => ({ status: false, message });

/** Progress status values given by §2/§3; other values are "not shown", so this stand-in refuses them. */
const PROGRESS_STATUSES = ['In Progress', 'Completed'] as const;

const ymd = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date in YYYY-MM-DD form')
  .refine(
    (s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
    'is not a calendar date',
  );

const createSchema = z.object({
  projectId: z.string().min(1),
  date: ymd,
  status: z.enum(PROGRESS_STATUSES),
  details: z.string(),
});

/**
 * Registers every endpoint of progress-records-interface.md §4 on a router mounted at
 * {progress_base_url}. All but sign-in require x-api-key (§5); an unknown key is 401.
 */
export function progressRoutes(router: Router, deps: { store: StateStore; faults: FaultRegistry }): void {
  const { store } = deps;
  // With the `progressRequiresToken` setting, a token of this interface's own sign-in is needed
  // too (bearer, as the capture gateway takes its JWT).
  const requireKey = async (ctx: RouteContext) => {
    const key = ctx.req.headers['x-api-key'];
    const project = store.projectByKey(Array.isArray(key) ? key[0] : key);
    if (!project) throw new HttpError(401, progressFail('Unauthorized'));
    if (
      deps.faults.settings.progressRequiresToken &&
      !(await accountFromBearer(store, ctx.req.headers.authorization))
    ) {
      throw new HttpError(401, progressFail('Unauthorized'));
    }
    return project;
  };
  const requireParam = (ctx: RouteContext, name: string) => {
    const v = ctx.url.searchParams.get(name);
    if (!v) throw new HttpError(400, progressFail(`${name} is required`));
    return v;
  };

  router.add('POST', '/v1/users/signin', 'signin', async (ctx) => {
    const body = (await readJsonBody(ctx.req, progressFail)) as { email?: unknown; password?: unknown } | undefined;
    if (typeof body?.email !== 'string' || typeof body.password !== 'string') {
      throw new HttpError(400, progressFail('email and password are required'));
    }
    const a = findAccount(store, body.email, body.password);
    if (!a) throw new HttpError(401, progressFail('Invalid credentials'));
    const token = await issueToken(store, a, deps.faults.settings.tokenTtlSeconds);
    sendJson(ctx.res, 201, {
      success: true,
      result: {
        _id: a._id,
        firstName: a.firstName,
        lastName: a.lastName,
        fullName: `${a.firstName} ${a.lastName}`,
        email: a.email,
        contact: { code: '+1', number: 6175550142 },
        dob: '1988-04-12',
        verified: true,
        createdAt: a.createdAt,
        updatedAt: a.createdAt,
        __v: 0,
        avatar: '',
        isSupportUser: false,
        unReadNotifications: [],
        status: 'active',
        loginType: 'email',
        resetPasswordTimestamps: [],
        verificationTimestamps: [a.createdAt],
        userPreference: 'metric',
        age: 38,
        canResendVerification: false,
        canResetPassword: true,
        provider: 'local',
        token,
        refreshToken: randomBytes(32).toString('base64url'),
      },
    });
  });

  router.add('POST', '/progress', 'progress', async (ctx) => {
    const keyProject = await requireKey(ctx);
    const parsed = createSchema.safeParse(await readJsonBody(ctx.req, progressFail));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HttpError(400, progressFail(`${issue.path.join('.') || 'body'}: ${issue.message}`));
    }
    if (!store.project(parsed.data.projectId)) throw new HttpError(404, progressFail('Project not found'));
    if (parsed.data.projectId !== keyProject.id) throw new HttpError(401, progressFail('Unauthorized'));
    const entry = { id: newId(), ...parsed.data };
    store.state.progress.push(entry);
    store.save();
    sendJson(ctx.res, 201, entry);
  });

  router.add('GET', '/progress', 'progress', async (ctx) => {
    const keyProject = await requireKey(ctx);
    const projectId = requireParam(ctx, 'projectId');
    if (projectId !== keyProject.id) throw new HttpError(401, progressFail('Unauthorized'));
    const date = ctx.url.searchParams.get('date');
    if (date !== null && !ymd.safeParse(date).success)
      throw new HttpError(400, progressFail('date must be a date in YYYY-MM-DD form'));
    const list = store.state.progress.filter((p) => p.projectId === projectId && (date === null || p.date === date));
    sendJson(
      ctx.res,
      200,
      [...list].sort((a, b) => a.date.localeCompare(b.date)),
    );
  });

  router.add('GET', '/progress/:id', 'progress', async (ctx) => {
    const keyProject = await requireKey(ctx);
    // Another project's entry is answered as absent: its existence is not the key's to know.
    const entry = store.state.progress.find((p) => p.id === ctx.params.id && p.projectId === keyProject.id);
    if (!entry) throw new HttpError(404, progressFail('Progress not found'));
    sendJson(ctx.res, 200, entry);
  });

  router.add('GET', '/api/external-asset-categories', 'external-asset-categories', async (ctx) => {
    const keyProject = await requireKey(ctx);
    const project = requireParam(ctx, 'project');
    if (!store.project(project)) throw new HttpError(404, progressFail('Project not found'));
    if (project !== keyProject.id) throw new HttpError(401, progressFail('Unauthorized'));
    sendJson(ctx.res, 200, { success: true, result: store.state.assetCategories.filter((c) => c.project === project) });
  });

  router.add('GET', '/api/external-assets', 'external-assets', async (ctx) => {
    const keyProject = await requireKey(ctx);
    const structure = requireParam(ctx, 'structure');
    const category = requireParam(ctx, 'category');
    // A structure of another project is answered as absent, as an entry is.
    if (!keyProject.structures.some((s) => s.id === structure)) {
      throw new HttpError(404, progressFail('Structure not found'));
    }
    const cat = store.state.assetCategories.find(
      (c) => c.project === keyProject.id && (c.id === category || c.name === category),
    );
    if (!cat) throw new HttpError(404, progressFail('Category not found'));
    const result = store.state.assets
      .filter((a) => a.structure === structure && a.category === cat.id)
      .map(({ structure: _omit, ...asset }) => asset);
    sendJson(ctx.res, 200, { success: true, result });
  });
}
