import { existsSync } from 'node:fs';
import { packAssets } from '../../shared/asset-pack.js';
import { join } from 'node:path';
import { reasonOf } from '../api/errors.js';
import { HttpStatusError } from '../api/errors.js';
import { ProgressRefusedError, ProgressSignInError, explain } from '../api/progress-records.js';
import type { IpcHandlers } from '../ipc/dispatch.js';
import type { RecordsConnection } from './office.js';
import { OfficeRecords, isUnreachable } from './office.js';
import { monthReportCsv, monthReportName } from './month-report.js';
import { RecordsStore } from './records-store.js';

/** What a read says when the progress service cannot be reached and nothing of it is kept yet. */
const NO_CONNECTION = 'No connection to the progress service; this view needs it once.';

/** How often entries waiting in the office outbox are tried (ms). */
const OUTBOX_INTERVAL_MS = 60_000;

/**
 * The desktop app's office side (progress-records-interface.md): the records cache and outbox in
 * `<dataDir>/records.db`, opened on first use; a timer that sends what waits in the outbox every
 * minute whether or not the Progress screen is open; and the IPC handlers of the progress and
 * assets channels, with the service's errors in words a person reads (§7 of that interface).
 * `connect` answers the client for the current settings (throws Error saying what to set).
 */
export class OfficeSync {
  private office?: OfficeRecords;
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly dataDir: string,
    private readonly connect: () => RecordsConnection,
    private readonly structures: () => { id: string; name: string }[],
    /** The project's name from the settings ('' when none was given): neither interface gives one. */
    private readonly projectName: () => string = () => '',
  ) {}

  /** Starts the outbox timer and sends what waits now. */
  start(intervalMs = OUTBOX_INTERVAL_MS): void {
    this.timer = setInterval(() => void this.sendOutbox(), intervalMs);
    this.timer.unref?.();
    void this.sendOutbox();
  }

  /** Sends what waits in the outbox, if a records.db exists; failures wait for the next round. */
  async sendOutbox(): Promise<void> {
    if (this.closed || (!this.office && !existsSync(join(this.dataDir, 'records.db')))) return;
    await this.call((o) => o.sendOutbox()).catch(() => undefined);
  }

  /** The handlers of the progress.* and assets.* channels of shared/ipc.ts. */
  handlers(): Pick<
    IpcHandlers,
    | 'capture:progress.list'
    | 'capture:progress.get'
    | 'capture:progress.create'
    | 'capture:progress.revise'
    | 'capture:progress.signin'
    | 'capture:progress.report'
    | 'capture:progress.discard'
    | 'capture:assets.categories'
    | 'capture:assets.list'
  > {
    return {
      'capture:progress.list': ({ date }) =>
        this.call(async (o) => ({ ...(await o.listProgress(date)), projectName: this.projectName() })),
      'capture:progress.get': ({ id }) => this.call((o) => o.getProgress(id)),
      'capture:progress.create': (entry) => this.call((o) => o.createProgress(entry)),
      'capture:progress.revise': ({ id, ...entry }) => this.call((o) => o.revise(id, entry)),
      'capture:progress.signin': () => this.signIn(),
      // The entries read now, or the copy kept when the service cannot be reached.
      'capture:progress.report': ({ month }) =>
        this.call(async (o) => ({
          fileName: monthReportName(month),
          csv: monthReportCsv(month, (await o.listProgress()).entries),
        })),
      'capture:progress.discard': ({ id }) => this.call((o) => o.discard(id)),
      'capture:assets.categories': () =>
        this.call(async (o) => {
          const { value, ...freshness } = await o.categories();
          return { categories: value, structures: this.structures(), ...freshness };
        }),
      // Packed in columns (shared/asset-pack.ts); the call's signal stops the request when the
      // person chose another category.
      'capture:assets.list': ({ structure, category }, signal) =>
        this.call(async (o) => {
          const { value, ...freshness } = await o.assets(structure, category, signal);
          return { assets: packAssets(value), ...freshness };
        }),
    };
  }

  /**
   * Signs in to the progress service with the account in the settings (§4 /v1/users/signin),
   * keeping its tokens as every call's sign-in does. Never throws: a refusal ("Invalid
   * credentials"), no connection or no address is said in a sentence for the settings screen.
   */
  async signIn(): Promise<{ signedIn: boolean; message: string }> {
    try {
      const who = await this.connect().client.signIn();
      return { signedIn: true, message: `Signed in to the progress service as ${who.email}.` };
    } catch (err) {
      if ((err instanceof HttpStatusError && err.status < 500) || err instanceof ProgressRefusedError) {
        return { signedIn: false, message: explain(new ProgressSignInError(err.message, { cause: err }))! };
      }
      if (isUnreachable(err))
        return { signedIn: false, message: 'No connection to the progress service; try again when it is back.' };
      return { signedIn: false, message: explain(err) ?? reasonOf(err) };
    }
  }

  /** Stops the timer and closes records.db. */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.office?.close();
    this.office = undefined;
  }

  /** Runs an office-records call with its errors in words a person reads. */
  private async call<T>(fn: (o: OfficeRecords) => Promise<T>): Promise<T> {
    try {
      this.office ??= new OfficeRecords(RecordsStore.open(join(this.dataDir, 'records.db')), this.connect);
      return await fn(this.office);
    } catch (err) {
      // Unreachable with no copy kept: one sentence, never a raw error code.
      if (isUnreachable(err)) throw new Error(NO_CONNECTION);
      throw new Error(explain(err) ?? reasonOf(err));
    }
  }
}
