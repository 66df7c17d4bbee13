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

/** A token whose signature checked out: what the later checks need of its payload. */
interface VerifiedToken {
  secret: string;
  sub: unknown;
  gen: unknown;
  /** Expiry, seconds since epoch, or undefined when the token has none. */
  exp: number | undefined;
}

/**
 * Tokens already verified, per store: a client sends the same token with every request, and the
 * HS256 check through WebCrypto was about a tenth of the stand-in's CPU per add-capture. What can
 * change after signing (expiry, token generation, the account) is still checked on every request.
 */
const verified = new WeakMap<StateStore, Map<string, VerifiedToken>>();
/** Bound of each store's cache; past it the cache starts again (tokens are re-verified once). */
const VERIFIED_MAX = 1000;

/**
 * The account a `Bearer <JWT>` authorization header belongs to, or undefined when the header is
 * missing, malformed, expired, signed with another key or of an older token generation.
 */
export async function accountFromBearer(store: StateStore, header: string | undefined): Promise<Account | undefined> {
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  if (!m) return undefined;
  const token = m[1]!;
  let cache = verified.get(store);
  if (!cache) verified.set(store, (cache = new Map()));
  let known = cache.get(token);
  if (!known || known.secret !== store.state.jwtSecret) {
    try {
      const { payload } = await jwtVerify(token, key(store), { algorithms: ['HS256'] });
      known = { secret: store.state.jwtSecret, sub: payload.sub, gen: payload.gen, exp: payload.exp };
    } catch {
      return undefined;
    }
    if (cache.size >= VERIFIED_MAX) cache.clear();
    cache.set(token, known);
  }
  // As jwtVerify judges expiry: expired once exp is at or before now, in whole seconds.
  if (known.exp !== undefined && known.exp <= Math.floor(Date.now() / 1000)) return undefined;
  if (known.gen !== store.state.tokenGeneration) return undefined;
  return store.state.accounts.find((a) => a._id === known.sub);
}

/** The account with these credentials, if any. */
export function findAccount(store: StateStore, email: unknown, password: unknown): Account | undefined {
  if (typeof email !== 'string' || typeof password !== 'string') return undefined;
  return store.state.accounts.find(
    (a) => a.email.toLowerCase() === email.trim().toLowerCase() && a.password === password,
  );
}
