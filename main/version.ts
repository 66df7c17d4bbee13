import pkg from '../package.json' with { type: 'json' };

// The app's version, from package.json: under tsx it is read at start; esbuild's bundles (the CLI,
// the Electron main and the service worker) inline it, so it holds in a packaged app too.

/** The version of Capture Uploader (semver, package.json `version`), as the MHL's creatorinfo `tool` and `--version` give it. */
export const APP_VERSION: string = pkg.version;
