import type { AssetCategoryView, AssetView, OutboxItemView, ProgressEntryView } from '../../shared/ipc.js';
import { HttpStatusError, NetworkError, reasonOf } from '../api/errors.js';
import type {
  AssetCategory,
  ExternalAsset,
  NewProgressEntry,
  ProgressEntry,
  ProgressRecordsClient,
} from '../api/progress-records.js';
import type { SettingsPlace } from '../api/progress-records.js';
import { ProgressRefusedError, explain, sameEntry } from '../api/progress-records.js';
import type { OutboxItem, RecordsStore } from './records-store.js';

/** The client for the current settings and the scope its records are kept under (service and project; no secret). */
export interface RecordsConnection {
  client: ProgressRecordsClient;
  scope: string;
}

/**
 * A read as the workspace shows it: the service's answer, or when the service cannot be reached
 * the last one kept, with `offline` true and why. `asOf` is when the service gave it (ISO 8601 UTC).
 */
export interface Snapshot<T> {
  value: T;
  asOf: string;
  offline: boolean;
  offlineReason: string | null;
}

/**
 * Whether an error means the service could not be reached: no answer (NetworkError) or a 5xx.
 * Only these make the workspace offline; a 4xx is the service's answer and is shown as one.
 */
export function isUnreachable(err: unknown): boolean {
  return err instanceof NetworkError || (err instanceof HttpStatusError && err.status >= 500);
}

/**
 * The HTTP statuses by which the service refuses one entry itself (§4 POST /progress): a request it
 * read and will not record as it is. The entry is kept refused with the service's message, for the
 * person to correct or discard; the entries after it are still sent
 * (docs/decisions/0011-outbox-errors.md). 401 (the key or account), 407, 408, 425 and 429 are
 * not about the entry, and a 5xx is the service away: those keep it waiting.
 */
const REFUSING_STATUSES = new Set([400, 403, 404, 405, 409, 410, 411, 413, 414, 415, 422]);

/** Whether `err` refuses the entry that was sent (see REFUSING_STATUSES), or an answer said it failed. */
function refusesEntry(err: unknown): boolean {
  return err instanceof ProgressRefusedError || (err instanceof HttpStatusError && REFUSING_STATUSES.has(err.status));
}

/**
 * The office workspace's records (progress-records-interface.md §4) with a cache and an outbox in
 * records.db, so that it opens offline and keeps what is recorded offline.
 *
 * Sending is never doubled and never swallowed: before an entry's first send, the entries of its
 * date with the same content are read and their ids committed to its outbox row with the send's
 * count (`attempts`, `knownIds`); an entry with an earlier attempt is first looked up on its
 * date, and only an entry of the same content that is not among those ids is taken as its own
 * (`lostAnswerMatch`; docs/decisions/0027-progress-lost-answer-match.md). So two identical entries on one
 * day are both recorded. Outbox work runs one operation at a time, so a refresh and a new entry
 * never send the same row twice.
 * Methods throw the client's errors (HttpStatusError, NetworkError, …) when there is nothing
 * cached to fall back on, and the connection's Error when no progress address is set.
 */
export class OfficeRecords {
  private exclusive: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: RecordsStore,
    private readonly connect: () => RecordsConnection,
    private readonly now: () => Date = () => new Date(),
    /** Where the person corrects the settings, in the messages kept on outbox entries (`explain`). */
    private readonly where: SettingsPlace = 'app',
  ) {}

  /**
   * §4 GET /progress: the project's entries (or one date's, YYYY-MM-DD), after trying to send what
   * waits in the outbox. The outbox never stops the read: each send's failure is kept on its own
   * entry (refused, or waiting with why), so the list, the calendar and the export always work.
   */
  async listProgress(
    date?: string,
  ): Promise<
    Omit<Snapshot<never>, 'value'> & { entries: ProgressEntryView[]; project: string; outbox: OutboxItemView[] }
  > {
    const { client } = this.connect();
    // Every failure is on its entry by now (drain); the read below says what it must of the service.
    await this.sendOutbox().catch(() => undefined);
    const { value, ...freshness } = await this.readProgress(date);
    return {
      entries: value,
      project: client.projectId,
      ...freshness,
      outbox: this.store.outbox(this.connect().scope).map(outboxView),
    };
  }

  /**
   * §4 GET /progress: the project's entries (or one date's, YYYY-MM-DD), kept in records.db; when
   * the service cannot be reached (no answer, 5xx), the copy kept, said offline with since when
   * and why. Sends nothing of the outbox (`listProgress` does, first). Throws the client's error
   * when nothing is kept to answer with, or the service refuses (4xx).
   */
  async readProgress(date?: string): Promise<Snapshot<ProgressEntryView[]>> {
    const { client, scope } = this.connect();
    const kind = date ? `progress:${date}` : 'progress';
    return this.read(
      scope,
      kind,
      async () => (await client.listProgress(date)).map(entryView),
      () => {
        // A date never read online: its entries among the whole list kept, if any.
        const all = this.store.read<ProgressEntryView[]>(scope, 'progress');
        return all && { value: all.value.filter((e) => e.date === date), asOf: all.asOf };
      },
    );
  }

  /** §4 GET /progress/{id}; offline, the entry from the list kept. Throws HttpStatusError 404 when there is none. */
  async getProgress(id: string): Promise<ProgressEntryView> {
    const { client, scope } = this.connect();
    try {
      return entryView(await client.getProgress(id));
    } catch (err) {
      const kept = isUnreachable(err)
        ? this.store.read<ProgressEntryView[]>(scope, 'progress')?.value.find((e) => e.id === id)
        : undefined;
      if (kept) return kept;
      throw err;
    }
  }

  /**
   * §4 POST /progress: records an entry once. Answers `{ entry }` when the service recorded it,
   * `{ queued }` when it could not be reached (the entry waits in the outbox and is sent by a later
   * `sendOutbox`). A 4xx (to the read of its date before it is sent, or to the send) is thrown as
   * the client's HttpStatusError and nothing waits.
   */
  createProgress(entry: NewProgressEntry): Promise<{ entry: ProgressEntryView | null; queued: OutboxItemView | null }> {
    return this.serially(async () => {
      const { client, scope } = this.connect();
      await this.drain(client, scope).catch(() => undefined); // older entries first; a failure leaves them waiting
      // Committed before anything leaves, so a crash loses nothing the person wrote.
      const item = this.store.enqueue(scope, entry, this.now().toISOString());
      try {
        const known = (await client.listProgress(entry.date)).filter((p) => sameEntry(p, entry)).map((p) => p.id);
        this.store.countAttempt(item.id, known);
        const recorded = await client.createProgress(entry, known);
        this.store.settle(scope, item.id, recorded.id);
        return { entry: this.remember(scope, recorded), queued: null };
      } catch (err) {
        const now = this.store.item(scope, item.id);
        if (isUnreachable(err) && now) return { entry: null, queued: outboxView(now) };
        this.store.remove(scope, item.id);
        throw err;
      }
    });
  }

  /**
   * Sends the waiting entries, oldest first, under the lookup rule (class comment). An entry the
   * service refuses (`refusesEntry`: 400, 403, 404, 409, 422, …, or an answer that says it failed)
   * stays in the outbox marked refused with the service's message, and the next is sent. Any other
   * failure (the service away, a 429, the key refused) is kept on that entry as why it waits, and
   * ends the round (throws it: it and the rest keep waiting). Answers the entries recorded.
   */
  sendOutbox(): Promise<ProgressEntryView[]> {
    return this.serially(async () => {
      const { client, scope } = this.connect();
      return this.drain(client, scope);
    });
  }

  /**
   * An outbox entry, refused or waiting, corrected by the person: its fields replaced, waiting, then
   * sent with the rest. Answers `{ entry }` when it was recorded, `{ item }` when it still waits
   * (the service cannot be reached) or was refused again. A waiting entry that was sent before may
   * be recorded already with its answer lost (§4 POST /progress is not idempotent, and a recorded
   * entry can never be changed): it is looked up first. Throws Error when `id` is no longer in the
   * outbox, when the lookup finds it recorded (it leaves the outbox), or when the lookup cannot be
   * made (it stays as it was); the client's error when the service answers something else.
   */
  revise(
    id: number,
    entry: NewProgressEntry,
  ): Promise<{ entry: ProgressEntryView | null; item: OutboxItemView | null }> {
    return this.serially(async () => {
      const { client, scope } = this.connect();
      const item = this.store.outbox(scope).find((i) => i.id === id);
      if (!item)
        throw new Error(`Entry ${id} is no longer waiting to be sent: it was sent or discarded. Refresh to see it.`);
      if (item.state === 'waiting' && item.attempts > 0) {
        const found = await client.listProgress(item.date).then(
          (list) => lostAnswerMatch(list, item, this.store.outbox(scope)),
          (err: unknown) => {
            throw new Error(
              `This entry may have reached the progress service already (${reasonOf(err)}); it can be corrected once the service answers.`,
              { cause: err },
            );
          },
        );
        if (found) {
          this.store.settle(scope, id, found.id);
          this.remember(scope, found);
          throw new Error(
            `This entry was recorded already, as entry ${found.id} of ${found.date}; a recorded entry cannot be changed. Record a new entry to add to it.`,
          );
        }
      }
      if (!this.store.revise(scope, id, entry))
        throw new Error(`Entry ${id} is no longer waiting to be sent: it was sent or discarded. Refresh to see it.`);
      const recorded = new Map<number, ProgressEntryView>();
      await this.drain(client, scope, recorded).catch((err: unknown) => {
        if (!isUnreachable(err)) throw err;
      });
      const left = this.store.outbox(scope).find((i) => i.id === id);
      return { entry: recorded.get(id) ?? null, item: left ? outboxView(left) : null };
    });
  }

  /** The outbox as it is now, without a request: refused and waiting entries, oldest first. */
  outboxNow(): OutboxItemView[] {
    return this.store.outbox(this.connect().scope).map(outboxView);
  }

  /** Takes an entry out of the outbox unsent (the person gave it up, e.g. after a refusal). Answers whether it was there. */
  async discard(id: number): Promise<boolean> {
    return this.serially(async () => this.store.remove(this.connect().scope, id));
  }

  /** §4 GET /api/external-asset-categories: the project's categories with their stages. */
  categories(): Promise<Snapshot<AssetCategoryView[]>> {
    const { client, scope } = this.connect();
    return this.read(scope, 'categories', async () => (await client.categories()).map(categoryView));
  }

  /**
   * §4 GET /api/external-assets: a structure's assets in a category (by name or id). `signal`
   * stops the request (the person chose another category): it then throws CancelledError and
   * keeps nothing. The answer is kept for offline use after it is returned, not before: a floor's
   * 200,000 points take a tenth of a second to write, which the drawing need not wait for.
   */
  assets(structure: string, category: string, signal?: AbortSignal): Promise<Snapshot<AssetView[]>> {
    const { client, scope } = this.connect();
    return this.read(
      scope,
      `assets:${structure}:${category}`,
      async () => (await client.assets(structure, category, signal)).map(assetView),
      undefined,
      { keepLater: true },
    );
  }

  /** Closes records.db. */
  close(): void {
    this.store.close();
  }

  /** Sends the waiting entries (see sendOutbox); `recorded` gets each one recorded by its outbox id. */
  private async drain(
    client: ProgressRecordsClient,
    scope: string,
    recorded?: Map<number, ProgressEntryView>,
  ): Promise<ProgressEntryView[]> {
    const sent: ProgressEntryView[] = [];
    for (const { id } of this.store.outbox(scope).filter((i) => i.state === 'waiting')) {
      // Read as it is now: an entry settled before it in this round may have added to its known ids.
      const item = this.store.item(scope, id);
      if (!item || item.state !== 'waiting') continue;
      const entry = { date: item.date, status: item.status, details: item.details };
      try {
        // One read of its date: the entries there before its first send, or, after an earlier
        // send whose answer may have been lost, the lookup for it.
        const list = await client.listProgress(item.date);
        const found = item.attempts > 0 ? lostAnswerMatch(list, item, this.store.outbox(scope)) : undefined;
        let answer = found;
        if (!answer) {
          const known =
            item.attempts > 0 ? (item.knownIds ?? []) : list.filter((p) => sameEntry(p, entry)).map((p) => p.id);
          this.store.countAttempt(item.id, known);
          answer = await client.createProgress(entry, known);
        }
        this.store.settle(scope, item.id, answer.id);
        const view = this.remember(scope, answer);
        recorded?.set(item.id, view);
        sent.push(view);
      } catch (err) {
        // A refusal is about this entry alone: keep it for the person and send the next. Anything
        // else (the service away, 429, the key refused) is about the service: the entry says why
        // it waits, and it and those after it wait for the next round.
        if (refusesEntry(err)) {
          this.store.refuse(item.id, explain(err, this.where, 'outbox entry') ?? reasonOf(err));
          continue;
        }
        this.store.noteWaiting(item.id, explain(err, this.where, 'outbox entry') ?? reasonOf(err));
        throw err;
      }
    }
    return sent;
  }

  /**
   * Reads from the service and keeps the answer; when it cannot be reached, the answer kept (or
   * `fallback`'s). With `keepLater` the answer is kept once the caller has it (setImmediate), and
   * a failure to keep it (records.db closed meanwhile) only loses that copy.
   */
  private async read<T>(
    scope: string,
    kind: string,
    fetch: () => Promise<T>,
    fallback?: () => { value: T; asOf: string } | undefined,
    opts: { keepLater?: boolean } = {},
  ): Promise<Snapshot<T>> {
    try {
      const value = await fetch();
      const asOf = this.now().toISOString();
      const keep = () => this.store.write(scope, kind, value, asOf);
      if (!opts.keepLater) keep();
      else
        setImmediate(() => {
          try {
            keep();
          } catch {
            // Closed while the answer went out: the next read keeps one.
          }
        });
      return { value, asOf, offline: false, offlineReason: null };
    } catch (err) {
      const kept = isUnreachable(err) ? (this.store.read<T>(scope, kind) ?? fallback?.()) : undefined;
      if (!kept) throw err;
      return { ...kept, offline: true, offlineReason: reasonOf(err) };
    }
  }

  /** Adds a recorded entry to the list kept, so that it shows offline too. */
  private remember(scope: string, recorded: ProgressEntry): ProgressEntryView {
    const view = entryView(recorded);
    const all = this.store.read<ProgressEntryView[]>(scope, 'progress');
    if (all && !all.value.some((e) => e.id === view.id))
      this.store.write(scope, 'progress', [...all.value, view], all.asOf);
    return view;
  }

  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.exclusive.then(fn, fn);
    this.exclusive = run.catch(() => undefined);
    return run;
  }
}

/**
 * The entry of `list` (§4 GET /progress of the item's date) that is the outbox `item`'s own,
 * recorded with its answer lost, or undefined (then it was not recorded and may be sent again).
 * The service keeps nothing of the client's (§2), so it is found by its whole content
 * (`sameEntry`) among the entries that were not there before its first send and that no other
 * outbox entry took (`item.knownIds`; null, a row sent before known ids were kept: any). Of two
 * such, the one that other waiting entries of the same content saw before their own first send
 * is taken first: it came earlier, so it is an earlier send's (docs/decisions/0027-progress-lost-answer-match.md).
 */
export function lostAnswerMatch(
  list: readonly ProgressEntry[],
  item: OutboxItem,
  outbox: readonly OutboxItem[],
): ProgressEntry | undefined {
  const known = item.knownIds ?? [];
  const seenBy = (p: ProgressEntry) =>
    outbox.filter((o) => o.id !== item.id && sameEntry(p, o) && o.knownIds?.includes(p.id)).length;
  return list
    .filter((p) => sameEntry(p, item) && !known.includes(p.id))
    .map((p) => ({ p, seen: seenBy(p) }))
    .sort((a, b) => b.seen - a.seen)
    .at(0)?.p;
}

const entryView = (e: ProgressEntry): ProgressEntryView => ({
  id: e.id,
  date: e.date,
  status: e.status,
  details: e.details,
});

const outboxView = (i: OutboxItem): OutboxItemView => ({
  id: i.id,
  date: i.date,
  status: i.status,
  details: i.details,
  queuedAt: i.queuedAt,
  state: i.state,
  error: i.error,
  field: i.state === 'refused' ? fieldNamed(i.error) : null,
});

/**
 * The entry field (§4 POST /progress body: date, status, details) a refusal's message names, so
 * the form can show it beside that field; null when it names none. The local service says
 * "status: Invalid enum value…", real services "details is required": the first field named wins.
 */
function fieldNamed(message: string | null): 'date' | 'status' | 'details' | null {
  // explain() puts its own words around the service's: only the service's part is read.
  const said = (message ?? '').replace(/^The progress service refused the request: /, '');
  const m = /\b(date|status|details)\b/i.exec(said);
  return m ? (m[1]!.toLowerCase() as 'date' | 'status' | 'details') : null;
}

const categoryView = (c: AssetCategory): AssetCategoryView => ({
  id: c._id,
  name: c.name,
  uom: c.uom,
  height: c.height ?? null,
  stages: c.stages.map((st) => ({
    _id: st._id,
    name: st.name,
    sequence: st.sequence,
    color: st.color,
    uom: st.uom ?? null,
    measurement: st.measurement ?? null,
  })),
});

const assetView = (a: ExternalAsset): AssetView => ({
  _id: a._id,
  shape: a.shape,
  points: a.points,
  doNotTrack: a.doNotTrack ?? false,
  snapshot: a.snapshot ?? a.properties?.snapshotDate ?? null,
  stages: a.stages.map((st) => ({ _id: st._id, percentage: st.percentage, date: st.date ?? null })),
});
