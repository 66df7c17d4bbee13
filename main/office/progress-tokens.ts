import type { ProgressTokens, TokenKeeper } from '../api/progress-records.js';
import type { KeyValueStore, SecretBox } from '../settings/settings.js';

/** The settings-store key under which the sealed progress sign-in tokens are kept. */
export const PROGRESS_TOKENS_KEY = 'progressTokens';

/** As stored: the scope (service address and project, no secret) and the tokens sealed. */
interface StoredTokens {
  scope: string;
  sealedToken: string;
  sealedRefreshToken: string;
}

/**
 * The progress service's sign-in tokens (progress-records-interface.md §2 Sign-in response
 * `token`, `refreshToken`), kept as the account password and API key are (main/settings.ts):
 * sealed by the SecretBox (safeStorage, which in the worker architecture the host holds) before
 * they reach the settings store, so they survive a restart and are never on disk in clear text.
 * Without a usable SecretBox they live in memory only. Tokens of another `scope` (a changed
 * address or project) are not answered. `get` throws nothing: a token that cannot be unsealed is
 * treated as none (the client signs in again).
 */
export class SealedTokenKeeper implements TokenKeeper {
  private memo: ProgressTokens | undefined;
  private loaded = false;

  constructor(
    private readonly kv: KeyValueStore,
    private readonly box: SecretBox,
    private readonly scope: string,
  ) {}

  get(): ProgressTokens | undefined {
    if (this.loaded) return this.memo;
    this.loaded = true;
    const s = this.kv.get(PROGRESS_TOKENS_KEY) as StoredTokens | undefined;
    if (!s || s.scope !== this.scope || !this.box.available()) return undefined;
    try {
      this.memo = {
        token: this.box.decrypt(s.sealedToken),
        refreshToken: s.sealedRefreshToken ? this.box.decrypt(s.sealedRefreshToken) : '',
      };
    } catch {
      this.memo = undefined; // another keyring: sign in again
    }
    return this.memo;
  }

  set(tokens: ProgressTokens | undefined): void {
    this.memo = tokens;
    this.loaded = true;
    if (!tokens || !this.box.available()) {
      // Forgotten, or nowhere safe to keep them: nothing on disk.
      this.kv.set(PROGRESS_TOKENS_KEY, undefined);
      return;
    }
    const stored: StoredTokens = {
      scope: this.scope,
      sealedToken: this.box.encrypt(tokens.token),
      sealedRefreshToken: tokens.refreshToken ? this.box.encrypt(tokens.refreshToken) : '',
    };
    this.kv.set(PROGRESS_TOKENS_KEY, stored);
  }
}

/**
 * One SealedTokenKeeper at a time, for the scope in use (progress address, project and account):
 * a new scope, such as a changed email, starts without tokens.
 */
export class ScopedTokenKeepers {
  private current?: { scope: string; keeper: SealedTokenKeeper };
  constructor(
    private readonly store: KeyValueStore,
    private readonly secrets: SecretBox,
  ) {}

  /** The keeper of `scope`'s tokens (made anew when the scope changed). */
  for(scope: string): SealedTokenKeeper {
    if (this.current?.scope !== scope)
      this.current = { scope, keeper: new SealedTokenKeeper(this.store, this.secrets, scope) };
    return this.current.keeper;
  }
}
