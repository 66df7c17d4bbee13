import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';

// Nothing can be code-signed on this machine, so CI checks what can be checked: electron-builder.yml
// asks for signing where each platform checks it (Authenticode with the publisher name electron-
// updater verifies on Windows; hardened runtime, entitlements and notarization on macOS), every
// secret is left to the signing job's environment, and no key or certificate is in the repository
// (docs/desktop-app.md, "Code signing").
interface Config {
  files: (string | Record<string, unknown>)[];
  artifactName: string;
  win: {
    forceCodeSigning: boolean;
    verifyUpdateCodeSignature: boolean;
    signtoolOptions: { publisherName: string; signingHashAlgorithms: string[]; rfc3161TimeStampServer: string };
  } & Record<string, unknown>;
  nsis: { artifactName: string };
  deb: { artifactName: string };
  mac: {
    target: string[];
    forceCodeSigning: boolean;
    hardenedRuntime: boolean;
    gatekeeperAssess: boolean;
    notarize: unknown;
    entitlements: string;
    entitlementsInherit: string;
    artifactName: string;
  } & Record<string, unknown>;
}
const text = readFileSync('electron-builder.yml', 'utf8');
const config = load(text) as Config;

describe('code signing in electron-builder.yml', () => {
  it('signs the Windows app and installer with SHA-256 and a time stamp, and names the publisher electron-updater checks', () => {
    expect(config.win.forceCodeSigning).toBe(true);
    expect(config.win.verifyUpdateCodeSignature).toBe(true);
    expect(config.win.signtoolOptions).toEqual({
      publisherName: 'Capture Uploader team',
      signingHashAlgorithms: ['sha256'],
      rfc3161TimeStampServer: expect.stringMatching(/^https?:\/\/\S+$/),
    });
  });

  it('signs the macOS app with the hardened runtime and its entitlements, notarizes it, and builds the zip updates come from', () => {
    expect(config.mac).toMatchObject({
      forceCodeSigning: true,
      hardenedRuntime: true,
      gatekeeperAssess: false,
      notarize: true,
      target: ['dmg', 'zip'],
    });
    expect(config.mac.entitlementsInherit).toBe(config.mac.entitlements);
    const plist = readFileSync(config.mac.entitlements, 'utf8');
    expect(plist).toContain('<key>com.apple.security.cs.allow-jit</key>');
    // Nothing beyond what Electron's JavaScript engine needs.
    expect([...plist.matchAll(/<key>([^<]+)<\/key>/g)].map((m) => m[1])).toEqual([
      'com.apple.security.cs.allow-jit',
      'com.apple.security.cs.allow-unsigned-executable-memory',
    ]);
  });

  it('holds no secret: certificates, passwords, identities and Apple credentials come from the environment', () => {
    for (const key of [
      'certificateFile',
      'certificatePassword',
      'certificateSha1',
      'certificateSubjectName',
      'azureSignOptions',
    ])
      expect(
        config.win[key] ?? (config.win.signtoolOptions as Record<string, unknown>)[key],
        `win.${key}`,
      ).toBeUndefined();
    expect(config.mac.identity, 'mac.identity').toBeUndefined();
    expect(config.mac.notarize, 'mac.notarize names no team or account').toBe(true);
    expect(text).not.toMatch(/CSC_LINK\s*[:=]|CSC_KEY_PASSWORD\s*[:=]|APPLE_(ID|APP_SPECIFIC_PASSWORD|API_KEY)\s*[:=]/);
    // No key, certificate or provisioning file is committed (the update keys included).
    const tracked = execFileSync('git', ['ls-files'], { encoding: 'utf8' }).split('\n');
    expect(tracked.filter((f) => /\.(pfx|p12|p8|cer|pem|key|mobileprovision|provisionprofile)$/i.test(f))).toEqual([]);
  });

  it('names every artifact without spaces (each is a target of the signed update repository) and ships the update root', () => {
    for (const name of [
      config.artifactName,
      config.nsis.artifactName,
      config.deb.artifactName,
      config.mac.artifactName,
    ])
      expect(name).toMatch(/^\$\{name\}[^ ]*\.\$\{ext\}$/);
    expect(config.files).toContain('assets/update-root.json');
  });
});
