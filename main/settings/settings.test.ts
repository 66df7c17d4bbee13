import { describe, expect, it } from 'vitest';
import type { KeyValueStore, SecretBox } from './settings.js';
import { settingsInput } from '../../shared/ipc.js';
import { NoSecureStorageError, SettingsRepository } from './settings.js';

const memory = (): KeyValueStore & { raw: Map<string, unknown> } => {
  const raw = new Map<string, unknown>();
  return { raw, get: (k) => raw.get(k), set: (k, v) => raw.set(k, v) };
};
const box = (available: boolean): SecretBox => ({
  available: () => available,
  encrypt: (s) => Buffer.from(s).reverse().toString('base64'),
  decrypt: (s) => Buffer.from(s, 'base64').reverse().toString(),
});
const input = {
  baseUrl: 'https://gateway.example/',
  authUrl: 'https://auth.example',
  progressBaseUrl: '',
  projectId: ' p1 ',
  email: 'ops@example.com',
  password: 'hunter2-field',
  apiKey: 'ck_live_123',
  concurrency: 4,
  structures: [],
};

describe('SettingsRepository', () => {
  it('stores the password and API key sealed, shows only that they are set, and unseals them for use', () => {
    const store = memory();
    const repo = new SettingsRepository(store, box(true));
    const { next } = repo.prepare(input);
    repo.commit(next);
    expect(JSON.stringify([...store.raw.values()])).not.toMatch(/hunter2-field|ck_live_123/);
    expect(repo.view()).toMatchObject({
      hasPassword: true,
      hasApiKey: true,
      configured: true,
      baseUrl: 'https://gateway.example',
      projectId: 'p1',
    });
    expect(JSON.stringify(repo.view())).not.toMatch(/hunter2|ck_live/);
    expect(repo.resolved()).toMatchObject({ password: 'hunter2-field', apiKey: 'ck_live_123' });
  });

  it("keeps the project's name as typed (neither interface gives one), and keeps it when a save leaves it out", () => {
    const repo = new SettingsRepository(memory(), box(true));
    expect(repo.view().projectName).toBe('');
    repo.commit(repo.prepare({ ...input, projectName: ' Harbor View Medical Center ' }).next);
    expect(repo.view().projectName).toBe('Harbor View Medical Center');
    repo.commit(repo.prepare(input).next);
    expect(repo.view().projectName).toBe('Harbor View Medical Center');
    repo.useLocal([], 'Local Project');
    expect(repo.view().projectName).toBe('Local Project');
  });

  it('keeps stored secrets when saved again with empty ones', () => {
    const repo = new SettingsRepository(memory(), box(true));
    repo.commit(repo.prepare(input).next);
    repo.commit(repo.prepare({ ...input, password: '', apiKey: undefined, concurrency: 2 }).next);
    expect(repo.resolved()).toMatchObject({ password: 'hunter2-field', apiKey: 'ck_live_123', concurrency: 2 });
  });

  it('refuses to store secrets where the system offers no encryption, and says so', () => {
    const store = memory();
    const repo = new SettingsRepository(store, box(false));
    expect(() => repo.prepare(input)).toThrow(NoSecureStorageError);
    expect(() => repo.prepare(input)).toThrow(/not saved: they would be in clear text/);
    expect(store.raw.size).toBe(0);
    expect(repo.view().encryptionAvailable).toBe(false);
  });

  // An address without its scheme is refused when it is set, not at the first upload.
  it.each([
    [
      'baseUrl',
      'gateway.example/gateway',
      /capture gateway address cannot be used: it must start with https:\/\/ \(or http:\/\/\)/,
    ],
    ['authUrl', '127.0.0.1:8080', /sign-in address cannot be used: it must start with https:\/\//],
    ['progressBaseUrl', 'localhost:9000/records', /progress records address cannot be used/],
  ] as const)('refuses %s "%s" naming the fix, and stores nothing', (key, value, message) => {
    const store = memory();
    const repo = new SettingsRepository(store, box(true));
    expect(() => repo.prepare({ ...input, [key]: value })).toThrow(message);
    expect(store.raw.size).toBe(0);
    expect(settingsInput.safeParse({ ...input, [key]: value }).success).toBe(false);
    expect(settingsInput.safeParse(input).success).toBe(true);
  });

  it("checks a whole number by the table's bounds in the store and at the IPC schema alike, and keeps it for local use", () => {
    const store = memory();
    const repo = new SettingsRepository(store, box(true));
    expect(() => repo.prepare({ ...input, concurrency: 17 })).toThrow(
      'The parts uploaded at once cannot be used: it must be a whole number from 1 to 16 (parts).',
    );
    expect(settingsInput.safeParse({ ...input, concurrency: 17 }).success).toBe(false);
    expect(store.raw.size).toBe(0);
    // Not given: the table's default, and the engine's options say the same.
    const { concurrency: _, ...withoutConcurrency } = input;
    repo.commit(repo.prepare(withoutConcurrency).next);
    expect([repo.view().concurrency, repo.engineSettings().concurrency]).toEqual([4, 4]);
    repo.commit(repo.prepare({ ...input, concurrency: 3 }).next);
    repo.useLocal([], 'Local Project');
    expect([repo.view().concurrency, repo.engineSettings().concurrency]).toEqual([3, 3]);
  });
});
