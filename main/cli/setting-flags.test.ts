import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { SETTINGS, settingsIn } from '../../shared/settings-table.js';
import { reportedSettings } from '../support/report-settings.js';
import { settingsWithoutSecrets } from '../support/scrub.js';
import { resolveGatewayConfig } from './config.js';
import { addSettingFlags, cliSettings, givenCliSettings } from './setting-flags.js';

// The command line's flags, `--help` and values come from the settings table
// (shared/settings-table.ts); these read them through commander as index.ts does.

/** Parses `args` with the table's flags, as the program's global options. */
function parse(args: string[]): Record<string, unknown> {
  const p = addSettingFlags(new Command('capture-uploader')).exitOverride();
  p.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  p.parse(args, { from: 'user' });
  return p.opts();
}

const ENV = {
  CAPTURE_BASE_URL: 'https://gw.example.com/',
  CAPTURE_AUTH_URL: 'https://auth.example.com',
  CAPTURE_API_KEY: 'key-from-env',
  CAPTURE_PROJECT_ID: 'p1',
  CAPTURE_EMAIL: 'ops@example.com',
  CAPTURE_PASSWORD: 'pw-from-env',
};

describe('the command line settings from the table', () => {
  it('--help has one line per flag of the table, with its variable, bounds, default and unit', () => {
    const help = addSettingFlags(new Command('capture-uploader')).helpInformation();
    const flagged = settingsIn('cli').filter((k) => SETTINGS[k].flag);
    expect(flagged.length).toBeGreaterThanOrEqual(10);
    for (const k of flagged) {
      expect(help).toContain(SETTINGS[k].flag);
      expect(help).toContain(SETTINGS[k].env);
    }
    expect(help.replace(/\s+/g, ' ')).toContain('(CAPTURE_CONCURRENCY; 1–16, default 4 parts)');
  });

  it('takes the flag over the variable over the default, and trims addresses of their trailing slash', () => {
    const byEnv = cliSettings(parse([]), ENV);
    expect(byEnv).toMatchObject({ baseUrl: 'https://gw.example.com', apiKey: 'key-from-env', concurrency: 4 });
    const byFlag = cliSettings(parse(['--concurrency', '2', '--base-url', 'https://other.example.com//']), {
      ...ENV,
      CAPTURE_CONCURRENCY: '9',
    });
    expect(byFlag).toMatchObject({ baseUrl: 'https://other.example.com', concurrency: 2 });
    expect(cliSettings(parse([]), { ...ENV, CAPTURE_CONCURRENCY: '9' }).concurrency).toBe(9);
  });

  it("refuses a value out of the table's bounds, naming where it was given, the value (never a secret's) and the bounds", () => {
    expect(() => parse(['--concurrency', '17'])).toThrow('It must be a whole number from 1 to 16 (parts).');
    expect(() => cliSettings(parse([]), { CAPTURE_CONCURRENCY: '0' })).toThrow(
      'CAPTURE_CONCURRENCY "0" cannot be used: it must be a whole number from 1 to 16 (parts).',
    );
    expect(() => cliSettings(parse(['--auth-url', 'auth.example.com:8080']), {})).toThrow(
      /^--auth-url "auth\.example\.com:8080" cannot be used: /,
    );
    // The flag wins over the variable, so the flag is what is named.
    expect(() =>
      cliSettings(parse(['--base-url', 'ftp://gw.example.com']), { CAPTURE_BASE_URL: 'https://gw.example.com' }),
    ).toThrow(/^--base-url "ftp:\/\/gw\.example\.com" cannot be used: /);
  });

  it('names every missing gateway setting with its variable and flag', () => {
    expect(() => resolveGatewayConfig(cliSettings(parse([]), { CAPTURE_EMAIL: 'ops@example.com' }))).toThrow(
      'Missing settings: CAPTURE_BASE_URL (or --base-url), CAPTURE_AUTH_URL (or --auth-url), CAPTURE_PROJECT_ID (or --project-id), CAPTURE_API_KEY (or --api-key), CAPTURE_PASSWORD (or --password).',
    );
    expect(resolveGatewayConfig(cliSettings(parse([]), ENV))).toEqual({
      baseUrl: 'https://gw.example.com',
      authUrl: 'https://auth.example.com',
      apiKey: 'key-from-env',
      projectId: 'p1',
      email: 'ops@example.com',
      password: 'pw-from-env',
    });
  });

  it("shows the settings in a report with the table's secrets only as set or not set", () => {
    const shown = settingsWithoutSecrets(reportedSettings(givenCliSettings(parse(['--password', 'pw-flag']), ENV)));
    expect(shown).toMatchObject({
      baseUrl: 'https://gw.example.com/',
      progressBaseUrl: null,
      apiKey: '(set)',
      password: '(set)',
      concurrency: 4,
    });
    expect(JSON.stringify(shown)).not.toMatch(/pw-flag|pw-from-env|key-from-env/);
    expect(reportedSettings(givenCliSettings(parse([]), {}))).toMatchObject({ apiKey: '(not set)', baseUrl: null });
  });
});
