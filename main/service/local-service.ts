import { createRequire } from 'node:module';

// The local test service is its own workspace package (e2e/service/, never a dependency of the
// app): the CLI's --demo and the desktop app's local-test choice reach it only through a dynamic
// import of its name, so it is in none of the app's bundles, and the packaged app, which does not
// contain it, simply does not offer it. What they use of it is what a real service is configured
// with (addresses, API key, project, account), never its internal state.

/** The package name of the local service (e2e/service/package.json). */
const LOCAL_SERVICE_PACKAGE = '@capture-uploader/local-service';

/** A structure with its designs, ids and friendly names (the app's `NamedStructure`). */
interface LocalStructure {
  id: string;
  name: string;
  designs: { id: string; name: string }[];
}

/**
 * What the local service announces when ready (its ready line), as far as a client needs it:
 * the same settings a real service is used with (capture-upload-interface.md §4 standard headers,
 * §4.1 sign-in; progress-records-interface.md §5), plus the project's structures and designs with
 * their names and the project's, which a real project gives out of band.
 */
export interface LocalServiceReady {
  /** {base_url} of the capture gateway, without a trailing slash. */
  baseUrl: string;
  /** {auth_url} of the sign-in service. */
  authUrl: string;
  /** {progress_base_url} of the progress-records interface. */
  progressBaseUrl: string;
  apiKey: string;
  projectId: string;
  account: { email: string; password: string };
  /** Structure ids of the project, in seed order. */
  structures: string[];
  /** The same structures with names and their designs. */
  namedStructures: LocalStructure[];
  /** The project's name, given out of band like the structures' names (absent from a build older than it). */
  projectName?: string;
}

/** A running local service: its ready info, and `close()` to stop it (state kept in its data folder). */
export interface LocalServiceHandle {
  info: LocalServiceReady;
  close(): Promise<void>;
}

/**
 * Starts the local service with its state and stored objects in `dataDir` (kept across restarts).
 * Rejects when the package cannot be loaded (not built: `npm run build:service`) or a port or the
 * folder cannot be used.
 */
export type LocalServiceStarter = (dataDir: string) => Promise<LocalServiceHandle>;

/**
 * The starter of the local service when its package is installed beside the app (a checkout
 * after `npm ci`), or undefined where it is not (the packaged app). Only resolves the package's
 * name: nothing of it is loaded until the starter runs.
 */
export function findLocalService(): LocalServiceStarter | undefined {
  try {
    createRequire(import.meta.url).resolve(`${LOCAL_SERVICE_PACKAGE}/package.json`);
  } catch {
    return undefined;
  }
  return async (dataDir) => {
    let service: typeof import('@capture-uploader/local-service');
    try {
      // A literal name the bundlers leave to Node at run time (package.json: build:main's
      // --packages=external, build:cli's --external:@capture-uploader/local-service).
      service = await import('@capture-uploader/local-service');
    } catch (err) {
      // Installed but not built: its package points at e2e/service/dist, which only a build makes.
      throw new Error(
        `The local test service could not be loaded; build it with \`npm run build:service\` (${err instanceof Error ? err.message : String(err)})`,
        { cause: err },
      );
    }
    return service.startLocalService({ dataDir });
  };
}

/**
 * Starts the local service, for the CLI's --demo. Throws Error saying why when this installation
 * has no local service (only a checkout of the repository has it).
 */
export async function startLocalService(dataDir: string): Promise<LocalServiceHandle> {
  const start = findLocalService();
  if (!start)
    throw new Error(
      `The local test service (${LOCAL_SERVICE_PACKAGE}) is not installed here: --demo runs only from a checkout of the repository after npm ci.`,
    );
  return start(dataDir);
}
