import pkg from '../package.json' with { type: 'json' };

// The app's version, from package.json, in a file of its own (not app-info.ts) so that only what
// asks for it carries package.json into its bundle. Under tsx it is read at start; esbuild's bundles (the CLI,
// the Electron main and the service worker) inline it, so it holds in a packaged app too.

/** The version of Capture Uploader (semver, package.json `version`), as the MHL's creatorinfo `tool` and `--version` give it. */
export const APP_VERSION: string = pkg.version;
