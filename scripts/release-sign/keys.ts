// The publisher's signing keys for the update repository (docs/desktop-app.md, "Publishing a
// signed update"): Ed25519, the key type TUF and tuf-js verify with Node's own crypto. A private
// key is a PKCS 8 PEM file in a folder (`<role>.pem`, `<role>-<anything>.pem`) or the text of an
// environment variable (`CAPTURE_UPDATE_<ROLE>_KEY`, one PEM block or several one after another),
// so a signing job can take them from its secret store and nothing is written to disk.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Key, Signature } from '@tufjs/models';

/** TUF's four top-level roles. */
export const ROLES = ['root', 'targets', 'snapshot', 'timestamp'] as const;
/** One of TUF's top-level roles. */
export type Role = (typeof ROLES)[number];

/** A private key and the public key TUF metadata lists for it. */
export interface SigningKey {
  /** TUF's key id: the SHA-256 (hex) of the public key's canonical JSON. */
  keyId: string;
  /** The public key as root metadata lists it (keytype and scheme `ed25519`, `keyval.public` hex). */
  key: Key;
  privateKey: KeyObject;
  /** Where it came from, for messages: a file's path or an environment variable's name. */
  source: string;
}

/** Where the private keys are looked for: a folder of PEM files and/or the environment. */
export interface KeySource {
  /** A folder holding `<role>.pem` and `<role>-*.pem`; absent: the environment only. */
  dir?: string;
  /** Variables `CAPTURE_UPDATE_<ROLE>_KEY` (default: none; the CLI passes process.env). */
  env?: Record<string, string | undefined>;
}

/** The environment variable holding `role`'s private key(s) as PEM text. */
export const keyEnvName = (role: Role) => `CAPTURE_UPDATE_${role.toUpperCase()}_KEY`;

/** The public half of an Ed25519 key as TUF lists it; the id is computed from it. */
function publicKeyOf(privateKey: KeyObject, source: string): SigningKey {
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error(
      `${source}: not an Ed25519 private key (it is ${privateKey.asymmetricKeyType ?? 'unknown'}); make keys with "npm run release:sign -- init" or "rotate".`,
    );
  // An Ed25519 SPKI is a fixed 12-byte header and the 32-byte key.
  const raw = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
  const hex = raw.toString('hex');
  // The key's canonical JSON (TUF: keys sorted, no spaces), whose SHA-256 is its id.
  const canonical = `{"keytype":"ed25519","keyval":{"public":"${hex}"},"scheme":"ed25519"}`;
  const keyId = createHash('sha256').update(canonical).digest('hex');
  return {
    keyId,
    key: new Key({ keyID: keyId, keyType: 'ed25519', scheme: 'ed25519', keyVal: { public: hex } }),
    privateKey,
    source,
  };
}

/** Reads every private key of one PEM text (several blocks one after another are several keys). Throws Error naming `source`. */
function keysFromPem(text: string, source: string): SigningKey[] {
  const blocks = text.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${source}: holds no PEM private key ("-----BEGIN PRIVATE KEY-----").`);
  return blocks.map((pem) => {
    let key: KeyObject;
    try {
      key = createPrivateKey(pem);
    } catch (err) {
      throw new Error(`${source}: the private key cannot be read (${(err as Error).message}).`);
    }
    return publicKeyOf(key, source);
  });
}

/** Every private key found for `role` in the folder and the environment (KeySource); [] when none. Throws Error naming a file or variable that cannot be read. */
export function findKeys(role: Role, from: KeySource): SigningKey[] {
  const found: SigningKey[] = [];
  if (from.dir && existsSync(from.dir))
    for (const name of readdirSync(from.dir).sort())
      if (name === `${role}.pem` || (name.startsWith(`${role}-`) && name.endsWith('.pem')))
        found.push(...keysFromPem(readFileSync(join(from.dir, name), 'utf8'), join(from.dir, name)));
  const env = from.env?.[keyEnvName(role)];
  if (env) found.push(...keysFromPem(env, keyEnvName(role)));
  // The same key given twice (a file and the variable) signs once.
  return found.filter((k, i) => found.findIndex((o) => o.keyId === k.keyId) === i);
}

/**
 * Makes a new Ed25519 key for `role` and writes it to `dir` as `<role>-<first 8 of its id>.pem`
 * (mode 0600, never over an existing file). Answers the key.
 */
export function newKeyFile(dir: string, role: Role): SigningKey & { file: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const k = publicKeyOf(privateKey, '');
  const file = join(dir, `${role}-${k.keyId.slice(0, 8)}.pem`);
  writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  return { ...k, source: file, file };
}

/** Signs `data` (the canonical JSON of a metadata's `signed`, @tufjs/models Metadata.sign) with `k`. */
export function signer(k: SigningKey): (data: Buffer) => Signature {
  return (data) => new Signature({ keyID: k.keyId, sig: sign(null, data, k.privateKey).toString('hex') });
}
