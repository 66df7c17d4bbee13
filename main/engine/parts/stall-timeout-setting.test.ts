import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import type { CaptureGateway } from '../../api/gateway.js';
import { settingsInput } from '../../../shared/ipc.js';
import { engineSettings } from '../../../shared/settings-table.js';
import { addSettingFlags, cliSettings } from '../../cli/setting-flags.js';
import { SettingsRepository } from '../../settings/settings.js';
import { tempQueue } from '../../testing/kit.js';
import { buildContext } from '../build-context.js';

// The stall timeout (no byte for this long: docs/engine.md, "A silent link") is a setting of the
// settings table: saved in the app or given on the command line, it is the engine's stall timeout.

const q = tempQueue('stall-timeout-setting');
afterAll(() => q.close());

/** The stall timeout (ms) of an engine built with `options` (its context, as UploadEngine builds it). */
function engineStallMs(options: Record<string, unknown>): number {
  const hooks = { emit: () => {}, warn: () => {}, fatal: () => false };
  return buildContext(
    { queue: q.queue, gateway: { watchCalls: () => {} } as unknown as CaptureGateway, ...options },
    hooks,
  ).stallTimeoutMs;
}

const input = {
  baseUrl: 'https://gateway.example',
  authUrl: 'https://auth.example',
  progressBaseUrl: '',
  projectId: 'p1',
  email: 'ops@example.com',
  password: 'pw',
  apiKey: 'key',
  structures: [],
};

describe('the stall timeout setting', () => {
  it('saved in the app, in seconds, is the engine stall timeout in ms; 30 s when never saved', () => {
    const map = new Map<string, unknown>();
    const repo = new SettingsRepository(
      { get: (k) => map.get(k), set: (k, v) => map.set(k, v) },
      { available: () => true, encrypt: (s) => s, decrypt: (s) => s },
    );
    expect(repo.view().stallTimeout).toBe(30);
    expect(engineStallMs(repo.engineSettings())).toBe(30_000);
    expect(engineStallMs({})).toBe(30_000);
    repo.commit(repo.prepare({ ...input, stallTimeout: 12 }).next);
    expect(engineStallMs(repo.engineSettings())).toBe(12_000);
  });

  it('is refused out of its bounds in the store and at the IPC schema, naming them', () => {
    const repo = new SettingsRepository(new Map() as never, {
      available: () => true,
      encrypt: (s) => s,
      decrypt: (s) => s,
    });
    expect(() => repo.prepare({ ...input, stallTimeout: 51 })).toThrow('it must be a whole number from 10 to 50 (s)');
    expect(settingsInput.safeParse({ ...input, stallTimeout: 9 }).success).toBe(false);
  });

  it('given on the command line (--stall-timeout, else CAPTURE_STALL_TIMEOUT) is the engine stall timeout', () => {
    const program = addSettingFlags(new Command('capture-uploader'));
    expect(program.helpInformation()).toContain('--stall-timeout <s>');
    program.parse(['--stall-timeout', '15'], { from: 'user' });
    expect(engineStallMs(engineSettings(cliSettings(program.opts(), {})))).toBe(15_000);
    expect(engineStallMs(engineSettings(cliSettings({}, { CAPTURE_STALL_TIMEOUT: '20' })))).toBe(20_000);
  });
});
