import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Router } from './http-router.js';
import { HttpError, readJsonBody, sendJson } from './http-router.js';

// An update feed as electron-builder's generic provider publishes it: a folder of static files,
// `latest.yml` (Windows), `latest-mac.yml`, `latest-linux.yml` (and `-linux-arm64`) naming the
// newest version and its installer with the installer's SHA-512 (base64) and size, the
// installers beside them. The app's updater reads the yml for its platform and refuses an
// installer whose bytes do not hash to what the yml says.

/** The channel files electron-updater asks for, by platform (its Provider's file suffixes). */
const CHANNEL_FILES = ['latest.yml', 'latest-mac.yml', 'latest-linux.yml', 'latest-linux-arm64.yml'];
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const updatesFail = (message: string) => ({ success: false, message });

/** A release to publish: `content` the installer's bytes; `sha512` (base64) replaces the true hash in the feed (a corrupt or tampered release). */
export interface UpdateRelease {
  version: string;
  fileName: string;
  content: Buffer;
  sha512?: string;
}

/**
 * Writes a release into the feed folder `dir`: the installer, and every channel file naming it
 * with its size (bytes), its SHA-512 (base64, or `release.sha512` when given) and the release
 * date (ISO 8601). Answers what the feed now states. Throws Error when a name is not a plain file name.
 */
export function publishRelease(dir: string, release: UpdateRelease): { sha512: string; size: number; path: string } {
  if (!SAFE_NAME.test(release.fileName)) throw new Error(`Not a plain file name: ${release.fileName}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, release.fileName), release.content);
  const sha512 = release.sha512 ?? createHash('sha512').update(release.content).digest('base64');
  const size = release.content.length;
  // JSON strings are valid YAML scalars: no YAML library needed for this fixed shape.
  const q = (s: string) => JSON.stringify(s);
  const yml = [
    `version: ${q(release.version)}`,
    'files:',
    `  - url: ${q(release.fileName)}`,
    `    sha512: ${q(sha512)}`,
    `    size: ${size}`,
    `path: ${q(release.fileName)}`,
    `sha512: ${q(sha512)}`,
    `releaseDate: ${q(new Date().toISOString())}`,
    '',
  ].join('\n');
  for (const name of CHANNEL_FILES) writeFileSync(join(dir, name), yml);
  return { sha512, size, path: release.fileName };
}

/** Serves the feed folder `dir`: `GET /:name` answers the file (yml as text, the rest as bytes), 404 when absent. */
export function updateRoutes(router: Router, dir: string): void {
  router.add('GET', '/:name', 'updates', (ctx) => {
    const name = ctx.params.name!;
    const file = join(dir, name);
    let size: number;
    try {
      if (!SAFE_NAME.test(name)) throw new Error('unsafe');
      size = statSync(file).size;
    } catch {
      throw new HttpError(404, updatesFail('Not found'));
    }
    ctx.res.writeHead(200, {
      'content-type': name.endsWith('.yml') ? 'text/yaml; charset=utf-8' : 'application/octet-stream',
      'content-length': size,
    });
    createReadStream(file).pipe(ctx.res);
  });
}

const publishSchema = z.object({
  version: z.string().min(1),
  fileName: z.string().regex(SAFE_NAME),
  contentBase64: z.string(),
  sha512: z.string().min(1).optional(),
});

/**
 * The admin side of the feed: `POST /updates` `{ version, fileName, contentBase64, sha512? }`
 * publishes a release (see {@link publishRelease}) and answers `{ sha512, size, path }`.
 */
export function updateAdminRoutes(router: Router, dir: string): void {
  router.add('POST', '/updates', 'admin', async (ctx) => {
    const parsed = publishSchema.safeParse(await readJsonBody(ctx.req, updatesFail, 64 * 1024 * 1024));
    if (!parsed.success)
      throw new HttpError(
        400,
        updatesFail(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')),
      );
    const { contentBase64, ...rest } = parsed.data;
    sendJson(ctx.res, 201, publishRelease(dir, { ...rest, content: Buffer.from(contentBase64, 'base64') }));
  });
}
