// electron-updater's own updater under plain Node, for the update tests (main/updates/) and the
// app harness (e2e/app/harness.ts): two pieces of Electron are replaced, as electron-updater's
// own tests do: the app adapter (version, folders, quit) and the HTTP transport (Electron's `net`
// becomes Node's http). DebUpdater is used on every platform: it downloads a whole installer and
// checks it, and is never asked to install (its quitAndInstall is replaced by the caller's).
import type { ClientRequest, RequestOptions } from 'node:http';
import { request } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DownloadOptions } from 'builder-util-runtime';
import { HttpExecutor, configureRequestOptions, configureRequestUrl } from 'builder-util-runtime';
import { DebUpdater } from 'electron-updater';
import type { AppAdapter } from 'electron-updater/out/AppAdapter.js';
import type { UpdaterPort } from '../updates/updates.js';

/** electron-updater's HttpExecutor over Node's http (the loopback feed is plain http). */
export class NodeHttp extends HttpExecutor<ClientRequest> {
  /** Every URL electron-updater asked for, in order. */
  readonly asked: string[] = [];
  createRequest(options: RequestOptions, callback: (response: unknown) => void): ClientRequest {
    this.asked.push(`http://${options.hostname ?? options.host}:${options.port}${options.path}`);
    // A fresh connection per request: the executor adds a timeout listener to each request's socket.
    return request({ ...options, agent: false }, callback);
  }
  download(url: URL, destination: string, options: DownloadOptions): Promise<string> {
    return options.cancellationToken.createPromise((resolve, reject, onCancel) => {
      const requestOptions: RequestOptions = { headers: options.headers ?? undefined };
      configureRequestUrl(url, requestOptions);
      configureRequestOptions(requestOptions);
      this.doDownload(
        requestOptions,
        {
          destination,
          options,
          onCancel,
          callback: (error) => (error ? reject(error) : resolve(destination)),
          responseHandler: null,
        },
        0,
      );
    });
  }
}

/**
 * electron-updater's DebUpdater for an installed app of `version` whose folders are in `root`
 * (made when missing), over Node's http; `quitAndInstall` replaces its install. Answers the
 * updater, its HTTP transport and the folder of the installer it holds for the install.
 */
export function nodeUpdater(
  root: string,
  quitAndInstall: (isSilent?: boolean, isForceRunAfter?: boolean) => void,
  version = '0.1.0',
): { updater: UpdaterPort; http: NodeHttp; pending: string } {
  const configPath = join(root, 'app-update.yml');
  mkdirSync(join(root, 'cache'), { recursive: true });
  // What electron-builder writes into the packaged app's resources for `publish: generic`.
  writeFileSync(
    configPath,
    'provider: generic\nurl: "https://updates.invalid/capture-uploader"\nupdaterCacheDirName: capture-uploader-updater\n',
  );
  const app: AppAdapter = {
    version,
    name: 'Capture Uploader',
    isPackaged: true,
    appUpdateConfigPath: configPath,
    userDataPath: root,
    baseCachePath: join(root, 'cache'),
    whenReady: () => Promise.resolve(),
    relaunch: () => {},
    quit: () => {},
    onQuit: () => {},
  };
  const updater = new DebUpdater(null, app);
  const http = new NodeHttp();
  (updater as unknown as { httpExecutor: HttpExecutor<ClientRequest> }).httpExecutor = http;
  updater.quitAndInstall = quitAndInstall;
  return {
    updater: updater as unknown as UpdaterPort,
    http,
    pending: join(root, 'cache', 'capture-uploader-updater', 'pending'),
  };
}
