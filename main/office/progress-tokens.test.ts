import { describe, expect, it } from 'vitest';
import type { KeyValueStore, SecretBox } from '../settings/settings.js';
import { PROGRESS_TOKENS_KEY, SealedTokenKeeper } from './progress-tokens.js';

// The progress sign-in tokens are secrets: sealed before they are stored.

const box = (available = true): SecretBox => ({
  available: () => available,
  encrypt: (s) => `sealed:${Buffer.from(s).toString('base64')}`,
  decrypt: (s) => Buffer.from(s.slice('sealed:'.length), 'base64').toString(),
});
const kvOf = (m = new Map<string, unknown>()): KeyValueStore & { m: Map<string, unknown> } => ({
  m,
  get: (k) => m.get(k),
  set: (k, v) => m.set(k, v),
});
const tokens = { token: 'eyJhbGciOi.header-payload.signature', refreshToken: 'refresh-7f3a' };

describe('SealedTokenKeeper', () => {
  it('stores the token and refresh token sealed, and a new keeper (a restart) unseals them', () => {
    const kv = kvOf();
    new SealedTokenKeeper(kv, box(), 'https://p.example acme').set(tokens);
    const stored = JSON.stringify(kv.m.get(PROGRESS_TOKENS_KEY));
    expect(stored).not.toContain(tokens.token);
    expect(stored).not.toContain(tokens.refreshToken);
    expect(stored).toContain('sealed:');
    expect(new SealedTokenKeeper(kv, box(), 'https://p.example acme').get()).toEqual(tokens);
  });

  it("answers nothing for another address or project's tokens, and forgets them on set(undefined)", () => {
    const kv = kvOf();
    const k = new SealedTokenKeeper(kv, box(), 'one');
    k.set(tokens);
    expect(new SealedTokenKeeper(kv, box(), 'two').get()).toBeUndefined();
    k.set(undefined);
    expect(kv.m.get(PROGRESS_TOKENS_KEY)).toBeUndefined();
    expect(new SealedTokenKeeper(kv, box(), 'one').get()).toBeUndefined();
  });

  it('without a secret store keeps them in memory only, never in clear text on disk', () => {
    const kv = kvOf();
    const k = new SealedTokenKeeper(kv, box(false), 'one');
    k.set(tokens);
    expect(k.get()).toEqual(tokens);
    expect(kv.m.get(PROGRESS_TOKENS_KEY)).toBeUndefined();
  });

  it('treats a token that cannot be unsealed as none', () => {
    const kv = kvOf(
      new Map([[PROGRESS_TOKENS_KEY, { scope: 'one', sealedToken: 'other-keyring', sealedRefreshToken: '' }]]),
    );
    const broken: SecretBox = {
      ...box(),
      decrypt: () => {
        throw new Error('cannot decrypt');
      },
    };
    expect(new SealedTokenKeeper(kv, broken, 'one').get()).toBeUndefined();
  });
});
