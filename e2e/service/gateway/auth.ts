import { SignJWT, jwtVerify } from 'jose';
import type { Account, StateStore } from './state.js';

const key = (store: StateStore) => new TextEncoder().encode(store.state.jwtSecret);

/**
 * Issues an HS256 JWT for an account, valid `ttlSeconds` (86400 by default, §5.3 of
 * capture-upload-interface.md). The token carries the current token generation, so the
 * "expire tokens now" fault can invalidate every token issued before it.
 */
export async function issueToken(store: StateStore, account: Account, ttlSeconds: number): Promise<string> {
  return new SignJWT({ email: account.email, gen: store.state.tokenGeneration })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(account._id)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(key(store));
}

/**
 * The account a `Bearer <JWT>` authorization header belongs to, or undefined when the header is
 * missing, malformed, expired, signed with another key or of an older token generation.
 */
export async function accountFromBearer(store: StateStore, header: string | undefined): Promise<Account | undefined> {
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  if (!m) return undefined;
  try {
    const { payload } = await jwtVerify(m[1]!, key(store), { algorithms: ['HS256'] });
    if (payload.gen !== store.state.tokenGeneration) return undefined;
    return store.state.accounts.find((a) => a._id === payload.sub);
  } catch {
    return undefined;
  }
}

/** The account with these credentials, if any. */
export function findAccount(store: StateStore, email: unknown, password: unknown): Account | undefined {
  if (typeof email !== 'string' || typeof password !== 'string') return undefined;
  return store.state.accounts.find(
    (a) => a.email.toLowerCase() === email.trim().toLowerCase() && a.password === password,
  );
}
