import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRuleInput, TestService } from '../../e2e/service/testing.js';
import { startTestService } from '../../e2e/service/testing.js';
import type { ProgressTokens, TokenKeeper } from './progress-records.js';
import { ProgressRecordsClient, ProgressRefusedError, ProgressSignInError, explain } from './progress-records.js';

// progress-records-interface.md §7: `{ status: false, message }` is the error body; a service that
// answers it (or `success: false`) with a 2xx is refusing all the same.

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());
afterEach(() => svc.admin('DELETE', '/faults'));

const client = () =>
  new ProgressRecordsClient(
    { baseUrl: svc.info.progressBaseUrl, apiKey: svc.info.apiKey, projectId: svc.info.projectId, ...svc.info.account },
    { retry: { retries: 0, delayMs: () => 0 }, timeoutMs: 2000 },
  );
async function answer(operation: string, status: number, body: unknown, method?: string): Promise<void> {
  const res = await svc.admin('POST', '/faults', {
    target: 'progress',
    operation,
    method,
    action: { type: 'json', status, body },
  } satisfies FaultRuleInput);
  expect(res.status).toBe(201);
}

/** `call` rejects with an error of class `type` whose message is `message`, and `explain` says it as `explained`. */
async function expectFailure(
  call: Promise<unknown>,
  type: new (...args: never[]) => Error,
  message: string,
  explained: string,
): Promise<void> {
  const err = await call.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(type);
  expect((err as Error).message).toBe(message);
  expect(explain(err)).toBe(explained);
}

describe('an answer that says it failed', () => {
  it('a 200 with success: false and a result is a refusal with the service message, not an empty list', async () => {
    await answer('external-asset-categories', 200, { success: false, result: [], message: 'Project is archived' });
    await expectFailure(
      client().categories(),
      ProgressRefusedError,
      'Project is archived',
      'The progress service refused the request: Project is archived. Correct it and try again.',
    );
  });

  it('a 200 with status: false is a refusal on the entry list and on an entry by id', async () => {
    await answer('progress', 200, { status: false, message: 'Quota exceeded' }, 'GET');
    await expect(client().listProgress()).rejects.toMatchObject({
      name: 'ProgressRefusedError',
      message: 'Quota exceeded',
      request: { method: 'GET', path: '/records/progress' },
    });
    await answer('progress', 200, { status: false, message: 'Entry hidden' }, 'GET');
    await expect(client().getProgress('abc')).rejects.toMatchObject({
      name: 'ProgressRefusedError',
      message: 'Entry hidden',
    });
  });

  it('a 201 with status: false to a new entry is a refusal, recorded nowhere and never sent twice', async () => {
    const before = svc.store.state.progress.length;
    await answer('progress', 201, { status: false, message: 'details: too short' }, 'POST');
    const err = await client()
      .createProgress({ date: '2026-11-02', status: 'Completed', details: 'x' }, [])
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ProgressRefusedError', message: 'details: too short' });
    expect(svc.store.state.progress).toHaveLength(before);
    // The rule fired once and the create was not sent again after it.
    const { rules } = (await (await svc.admin('GET', '/faults')).json()) as {
      rules: { fired: number; seen: number }[];
    };
    expect(rules[0]).toMatchObject({ fired: 1, seen: 1 });
  });

  it('a sign-in answered 201 with success: false is "Invalid credentials", not a signed-in user', async () => {
    await answer('signin', 201, {
      success: false,
      message: 'Invalid credentials',
      result: { _id: 'x', email: 'x', token: 't' },
    });
    await expect(client().signIn()).rejects.toMatchObject({
      name: 'ProgressRefusedError',
      message: 'Invalid credentials',
    });
  });

  it('an error status with success: false keeps its status and message', async () => {
    await answer('external-asset-categories', 403, { success: false, message: 'Forbidden for this key' });
    await expect(client().categories()).rejects.toMatchObject({
      name: 'HttpStatusError',
      status: 403,
      message: 'Forbidden for this key',
    });
  });
});

describe('its own sign-in, used when a call answers 401', () => {
  const kept = (): { tokens: ProgressTokens | undefined; keeper: TokenKeeper; sets: number } => {
    const box = {
      tokens: undefined as ProgressTokens | undefined,
      sets: 0,
      keeper: undefined as unknown as TokenKeeper,
    };
    box.keeper = { get: () => box.tokens, set: (t) => ((box.tokens = t), (box.sets += t ? 1 : 0)) };
    return box;
  };
  const withTokens = (keeper: TokenKeeper, account = svc.info.account) =>
    new ProgressRecordsClient(
      { baseUrl: svc.info.progressBaseUrl, apiKey: svc.info.apiKey, projectId: svc.info.projectId, ...account },
      { retry: { retries: 0, delayMs: () => 0 }, timeoutMs: 2000, tokens: keeper },
    );
  afterEach(() => svc.admin('PUT', '/settings', { progressRequiresToken: false }));

  it('signs in on a 401, keeps the token and refresh token, and sends them as a bearer token with the key from then on', async () => {
    await svc.admin('PUT', '/settings', { progressRequiresToken: true });
    const k = kept();
    const list = await withTokens(k.keeper).listProgress();
    expect(list.length).toBe(svc.store.state.progress.filter((p) => p.projectId === svc.info.projectId).length);
    expect(k.tokens).toEqual({
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      refreshToken: expect.any(String),
    });
    // The next client (another call, a restart) uses the kept token without signing in again.
    await answer('signin', 500, { status: false, message: 'sign-in down' });
    await expect(withTokens(k.keeper).categories()).resolves.not.toHaveLength(0);
    expect(k.sets).toBe(1);
  });

  it('a token the service no longer takes is replaced by signing in again', async () => {
    await svc.admin('PUT', '/settings', { progressRequiresToken: true });
    const k = kept();
    k.tokens = { token: 'old.stale.token', refreshToken: 'r' };
    await withTokens(k.keeper).createProgress(
      {
        date: '2026-11-03',
        status: 'Completed',
        details: 'signed in for this one',
      },
      [],
    );
    expect(svc.store.state.progress.filter((p) => p.details === 'signed in for this one')).toHaveLength(1);
    expect(k.tokens.token).not.toBe('old.stale.token');
  });

  it('a wrong password is ProgressSignInError "Invalid credentials", explained in plain words, and nothing is kept', async () => {
    await svc.admin('PUT', '/settings', { progressRequiresToken: true });
    const k = kept();
    await expectFailure(
      withTokens(k.keeper, { ...svc.info.account, password: 'wrong' }).listProgress(),
      ProgressSignInError,
      'Invalid credentials',
      'The progress service did not accept the email and password (Invalid credentials): correct them in Settings.',
    );
    expect(k.tokens).toBeUndefined();
  });

  it('a locked account is said to be locked, not a wrong password, with what to do', async () => {
    await svc.admin('PUT', '/settings', { progressRequiresToken: true });
    await answer('signin', 401, { status: false, message: 'Account locked' }, 'POST');
    const err = await withTokens(kept().keeper)
      .listProgress()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProgressSignInError);
    expect(explain(err)).toBe(
      "The progress service says the account is locked (Account locked): ask the project's administrator to unlock it, then try again.",
    );
  });

  it('a sign-in answer without its token is said in a sentence with the fix, the settings named for the CLI', async () => {
    await svc.admin('PUT', '/settings', { progressRequiresToken: true });
    await answer('signin', 201, { success: true, result: { _id: 'u1', email: 'a@b.c' } }, 'POST');
    const err = await withTokens(kept().keeper)
      .signIn()
      .catch((e: unknown) => e);
    expect(explain(err)).toBe(
      'The progress service answered POST /records/v1/users/signin in a form this app does not read (result.token): check the progress address in Settings; if it is right, the service may have changed, so tell support.',
    );
    expect(explain(err, 'cli')).toMatch(/: check CAPTURE_PROGRESS_URL \(or --progress-url\); if it is right/);
    expect(explain(new ProgressSignInError('Invalid credentials', { cause: null }), 'cli')).toBe(
      'The progress service did not accept the email and password (Invalid credentials): correct CAPTURE_EMAIL and CAPTURE_PASSWORD (or --email, --password).',
    );
  });

  it('a 401 to the API key itself, with the account signed in, stays the key refused', async () => {
    const k = kept();
    const c = new ProgressRecordsClient(
      { baseUrl: svc.info.progressBaseUrl, apiKey: 'ck_wrong', projectId: svc.info.projectId, ...svc.info.account },
      { retry: { retries: 0, delayMs: () => 0 }, tokens: k.keeper },
    );
    await expect(c.listProgress()).rejects.toMatchObject({ name: 'HttpStatusError', status: 401 });
    expect(k.tokens).toBeDefined(); // it did sign in once, which worked
  });

  it('signIn() says who signed in and keeps the tokens', async () => {
    const k = kept();
    await expect(withTokens(k.keeper).signIn()).resolves.toMatchObject({ email: svc.info.account.email });
    expect(k.tokens?.token).toBeTruthy();
  });
});

describe('the points of an asset (§2 ExternalAsset points)', () => {
  const asset = (points: unknown) => ({
    _id: 'a1',
    category: 'c1',
    shape: 'Polyline',
    points,
    stages: [{ _id: 's1', percentage: 10 }],
  });

  it('are read as the service gives them, each point a pair of finite numbers', async () => {
    const points = [
      { x: 0, y: 0 },
      { x: -12.5, y: 3e6, z: 4 },
    ];
    await answer('external-assets', 200, { success: true, result: [asset(points)] });
    expect((await client().assets('s', 'c1'))[0]!.points).toEqual(points);
  });

  it('refuse a point that is not { x: number, y: number }, naming the asset and the point', async () => {
    for (const bad of [{ x: '3', y: 4 }, { x: 3 }, null, [3, 4]]) {
      await answer('external-assets', 200, {
        success: true,
        result: [asset([{ x: 1, y: 2 }]), asset([{ x: 1, y: 2 }, bad])],
      });
      await expect(client().assets('s', 'c1')).rejects.toMatchObject({
        name: 'ResponseShapeError',
        message: expect.stringMatching(
          /^GET \/\S+\/api\/external-assets answered an unexpected shape: result\.1\.points\.1 a point \{ x: number, y: number \}$/,
        ),
      });
      await svc.admin('DELETE', '/faults');
    }
  });
});
