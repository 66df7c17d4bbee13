import type { ReportedPart } from '../api/gateway.js';
import { fileFacts } from '../intake/file-identity.js';
import { storedPartMd5s } from '../offload/part-md5.js';
import {
  CancelledError,
  HttpStatusError,
  NetworkError,
  ResponseShapeError,
  credentialsRefusal,
} from '../api/errors.js';
import type { UploadRecord } from '../api/schemas.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { isFinalized } from '../api/schemas.js';
import type { QueuedFile, QueuedPart } from '../queue/queue.js';
import type { EngineContext } from './context.js';
import { cardDeadline, partMd5Etag } from './parts/part-put.js';
import { StoredBytesCheck } from './parts/stored-bytes.js';
import { AnswerSettler, settleInDoubt } from './parts/in-doubt.js';
import { markUnanswered, sendPart } from './parts/part-retries.js';
import { PresignedUrls } from './parts/presigned-urls.js';
import { isStatusReadMissing, partsMissingNow } from './parts/status-read.js';
import { captureTooLarge } from './progress/transitions.js';

/**
 * The part MD5s the offload kept for this file, when they may stand for its bytes
 * (main/offload/part-md5.ts storedPartMd5s: the same identity when copied, when queued and now,
 * and the same part size); undefined otherwise, and when stat fails (the caller's checks say why).
 */
async function knownPartMd5s(ctx: EngineContext, file: QueuedFile): Promise<string[] | undefined> {
  try {
    return storedPartMd5s(ctx.queue.db, file, await cardDeadline(file.path, fileFacts(file.path)));
  } catch {
    return undefined;
  }
}

/**
 * The resume loop of capture-upload-interface.md §4 for one registered file, until the service
 * says it is completed: presign the missing parts (§4.5), PUT each (§4.6), report every part's
 * ETag in one complete-batch (§4.7), reconciling with the status read (§4.9) where storage may
 * hold parts this queue has no ETag for.
 *
 * A file whose every part is in storage always completes without sending a byte again: for a part
 * storage holds whose ETag was lost (a crash inside the ledger's window, an answer lost after the
 * last byte), the quoted MD5 of the part's bytes is reported, which is what S3 returns for an
 * unencrypted part; where storage's ETags are not MD5s, the reconciling status read lets the
 * service count the parts and the known ETags are reported.
 *
 * `run()` resolves when the file is completed. It throws CancelledError when `signal` aborts,
 * CredentialsRefusedError when the service refuses the queue's credentials, and otherwise the
 * error that ended the file (classified by the scheduler: retry later, or a person decides).
 */
export class FileUpload {
  private readonly tries = new Map<number, number>();
  private readonly backoff = { failures: 0 };
  private readonly urls: PresignedUrls;
  /** Quoted part MD5s kept from the offload's copy pass, by part number - 1; undefined: hash as the bytes go. */
  private known: string[] | undefined;
  /** Whether the file still holds the queued bytes, the parts storage holds included (stored-bytes.ts). */
  private readonly unchanged: StoredBytesCheck;
  /** What the last complete-batch answered when it could not be read and the status read said not finalized (settleUnread). */
  private unread: string | undefined;

  constructor(
    private readonly ctx: EngineContext,
    private readonly file: QueuedFile,
    private readonly signal: AbortSignal,
  ) {
    this.urls = new PresignedUrls(ctx.gateway, file.uploadId!, signal, {
      fileName: file.fileName,
      totalParts: file.totalParts ?? Math.max(1, Math.ceil(file.size / file.partSize!)),
      partSize: file.partSize!,
    });
    this.unchanged = new StoredBytesCheck(ctx, file, () => this.known);
  }

  /** Uploads the file; see the class comment for what it resolves and throws. */
  async run(): Promise<void> {
    const { ctx, file } = this;
    // A capture is sent whole or not at all: a lens whose sibling cannot fit in 10,000 parts is
    // not uploaded alone, whoever queued it again (docs/decisions/0010-whole-capture.md).
    const tooLarge = captureTooLarge(ctx.queue.filesOf(file.captureRow));
    if (tooLarge) throw new Error(tooLarge);
    this.known = await knownPartMd5s(ctx, file);
    await this.unchanged.assert();
    let best = Infinity;
    let stuck = 0;
    for (let round = 0; ; round++) {
      if (this.signal.aborted) throw new CancelledError();
      ctx.ledger.flush();
      // Held to the file before any byte goes (presigned-urls.ts presignAnswerProblem): its layout,
      // when given (either figure may be absent: docs/decisions/0003-tolerant-reader.md), part numbers and URLs.
      const presign = await this.gatewayCall(() => this.urls.refresh());
      let missing = presign.parts.map((p) => p.partNumber).sort((a, b) => a - b);
      const missingSet = new Set(missing);
      for (const n of await this.settleInDoubt(missingSet)) missingSet.delete(n);
      await this.reconcile(missingSet, round === 0);
      missing = missing.filter((n) => missingSet.has(n));
      const recovered = await this.sendMissing(missing);
      // Parts storage holds whose ETag this queue lost (a crash between storage's answer and the ledger's write).
      for (const p of ctx.queue.parts(file.id)) {
        if (p.etag || missingSet.has(p.partNumber) || recovered.has(p.partNumber)) continue;
        if (this.signal.aborted) throw new CancelledError(); // each part is a read of up to its whole size
        recovered.set(
          p.partNumber,
          this.known?.[p.partNumber - 1] ??
            (await partMd5Etag(file.path, file, (p.partNumber - 1) * file.partSize!, p.size)),
        );
      }
      // The bytes reported are the bytes queued: every stored part is in the queue before the check.
      ctx.ledger.flush();
      await this.unchanged.assert({ final: true });
      if (this.signal.aborted) throw new CancelledError();
      this.unread = undefined;
      const record = await this.report(recovered);
      // §4.7's ok/status decide; a missing figure is no failure (docs/decisions/0003-tolerant-reader.md).
      if (isFinalized(record)) return;
      // Without a list, the next round's presign-missing (§4.5) says what storage lacks.
      const missingParts = record.missingParts ?? [];
      await this.forgetMissing(missingParts); // the service lacks them: send them again
      if (missingParts.length < best) {
        best = missingParts.length;
        stuck = 0;
      } else if (++stuck >= ctx.maxRounds) {
        const listed = missingParts.length
          ? ` (${missingParts.slice(0, 10).join(', ')}${missingParts.length > 10 ? ', …' : ''})`
          : '';
        if (missingParts.length === 0 && this.unread)
          throw new Error(
            `complete-batch for ${file.fileName} answered nothing readable ${round + 1} times (${this.unread}) and the status read says it is not finalized though no part is missing; tell the platform's support`,
          );
        throw new Error(
          `The service still lists ${missingParts.length} part(s) of ${file.fileName} as missing${listed} after ${round + 1} rounds`,
        );
      }
      // Nothing to send again, yet not finalized: the service is still at work (§4.7 `uploading`).
      // Rounds back off as §8's retries do, so a service that lags gets time, not a burst.
      if (missingParts.length === 0)
        await sleep(ctx.partRetry.delayMs(stuck), undefined, { signal: this.signal }).catch(() => undefined);
    }
  }

  /**
   * Parts sent in full whose answer had not come when an earlier run stopped (in-doubt.ts): while
   * the service still lists one as missing, asks again for a while before it is sent a second
   * time. Returns the part numbers storage turned out to hold; every such mark is cleared.
   */
  private async settleInDoubt(missing: Set<number>): Promise<Set<number>> {
    const { ctx, file } = this;
    const marked = ctx.queue.parts(file.id).filter((p) => p.unansweredAt !== null);
    if (marked.length === 0) return new Set();
    const doubtful = marked
      .filter((p) => !p.etag && missing.has(p.partNumber))
      .map((p) => ({ partNumber: p.partNumber, unansweredAt: p.unansweredAt! }));
    const found = doubtful.length
      ? await this.gatewayCall((signal) =>
          settleInDoubt(
            doubtful,
            () => partsMissingNow(ctx.gateway, this.urls, file.uploadId!, signal, (err) => this.noStatusRead(err)),
            signal,
            ctx.answerSettleMs,
          ),
        )
      : new Set<number>();
    if (doubtful.length) {
      const resent = doubtful.filter((p) => !found.has(p.partNumber)).map((p) => p.partNumber);
      ctx.log.info(
        `${file.fileName}: ${doubtful.length} part(s) were sent in full when the last run stopped, before storage answered; ` +
          `${found.size} found in storage, not sent again${resent.length ? `; ${resent.join(', ')} not there, sent again` : ''}`,
      );
    }
    ctx.queue.markUnanswered(
      file.id,
      marked.map((p) => p.partNumber),
      null,
    );
    return found;
  }

  private noStatusRead(err: Error): void {
    this.ctx.log.info(
      `The gateway has no upload status read at the path this client assumes (${err.message}); reconciling with presign-missing alone`,
    );
  }

  /**
   * Parts this queue holds an ETag for that presign-missing (§4.5) lists as missing: storage's own
   * list of the upload's parts decides (classifyListedParts). Those it lacks are lost: forgotten, said
   * once (Transitions.partsLost) and sent again. Those it holds keep their ETags and are taken out
   * of `missing`: a list that lags behind storage, or counts only the parts reported so far, is
   * no loss and no reason to send a part twice. On the first round, starts tracking progress.
   */
  private async reconcile(missing: Set<number>, first: boolean): Promise<void> {
    const { ctx, file } = this;
    const listed = ctx.queue.parts(file.id).filter((p) => p.etag && missing.has(p.partNumber));
    if (listed.length > 0) {
      const { lost, unconfirmed, held } = await this.classifyListedParts(listed);
      ctx.transitions.partsLost(file, lost);
      ctx.queue.batch.forgetParts(
        file.id,
        unconfirmed.map((p) => p.partNumber),
      ); // sent again, no loss said
      if (!first)
        ctx.tracker.partsLost(
          file.id,
          [...lost, ...unconfirmed].map((p) => p.size),
        );
      for (const p of held) missing.delete(p.partNumber);
    }
    if (!first) return;
    const held = ctx.queue.parts(file.id).filter((p) => !missing.has(p.partNumber));
    ctx.tracker.track({
      fileId: file.id,
      captureRow: file.captureRow,
      fileName: file.fileName,
      bytesTotal: file.size,
      partsTotal: file.totalParts!,
      doneBytes: held.reduce((n, p) => n + p.size, 0),
      partsDone: held.length,
    });
  }

  /**
   * After a complete-batch (§4.7) that did not finish the file: forgets the ETags of the parts the
   * service still lists as missing, so they are sent again. Any of them this queue held an ETag
   * for is said lost only when storage's own list lacks it too (classifyListedParts).
   */
  private async forgetMissing(missing: readonly number[]): Promise<void> {
    const { ctx, file } = this;
    const wanted = new Set(missing);
    const listed = ctx.queue.parts(file.id).filter((p) => p.etag && wanted.has(p.partNumber));
    if (listed.length > 0) {
      const { lost, unconfirmed } = await this.classifyListedParts(listed);
      ctx.transitions.partsLost(file, lost);
      ctx.tracker.partsLost(
        file.id,
        [...lost, ...unconfirmed].map((p) => p.size),
      );
    }
    ctx.queue.batch.forgetParts(file.id, missing); // one transaction
  }

  /**
   * Asks storage's own list of the upload's parts about parts this queue holds an ETag for that
   * the service listed as missing: the §4.9 status read with `syncFromS3=true` (the service reads
   * ListParts), or presign-missing where the gateway has no status read (partsMissingNow).
   * `held`: parts the list has. `lost`: parts it lacks while it shows another part this queue
   * holds an ETag for, so the list is storage's and not only the parts reported so far.
   * `unconfirmed`: parts it lacks with no such sign (a storage without ListParts, whose list is
   * the parts reported; or every acknowledged part gone at once): sent again, no loss said.
   * Throws what the gateway throws.
   */
  private async classifyListedParts(
    listed: readonly QueuedPart[],
  ): Promise<{ lost: QueuedPart[]; unconfirmed: QueuedPart[]; held: QueuedPart[] }> {
    const { ctx, file } = this;
    const lacking = await this.gatewayCall((signal) =>
      partsMissingNow(ctx.gateway, this.urls, file.uploadId!, signal, (err) => this.noStatusRead(err)),
    );
    const gone = listed.filter((p) => lacking.has(p.partNumber));
    const held = listed.filter((p) => !lacking.has(p.partNumber));
    const showsStorage = ctx.queue.parts(file.id).some((p) => p.etag && !lacking.has(p.partNumber));
    if (gone.length > 0 && !showsStorage) {
      ctx.log.info(
        `${file.fileName}: the service lists part(s) ${gone.map((p) => p.partNumber).join(', ')} as missing and shows none of the parts storage acknowledged; ` +
          `its list may hold only the parts reported so far (a storage without ListParts), so they are sent again and no loss is said`,
      );
    }
    return { lost: showsStorage ? gone : [], unconfirmed: showsStorage ? [] : gone, held };
  }

  /**
   * Sends parts through the shared limiter, taking a slot before starting each so no more than
   * the limit wait at once whatever the part count; the first part that fails for good stops the
   * others (and so does the file's own signal). A part whose every byte left but whose answer was
   * lost is in doubt: storage may still be storing it, so it is asked about over the settle time
   * (AnswerSettler, in-doubt.ts) while the other parts and files go on, and sent again only if
   * storage never shows it. Returns the MD5 ETags of the parts found in storage that way.
   */
  private async sendMissing(partNumbers: number[]): Promise<Map<number, string>> {
    const { ctx, file } = this;
    // The first part that fails for good stops the others; so does the file's own signal, even
    // one aborted before this round began (a listener added then would never have heard it).
    const round = new AbortController();
    const signal = AbortSignal.any([this.signal, round.signal]);
    const settler = new AnswerSettler(
      () =>
        this.gatewayCall(() =>
          partsMissingNow(ctx.gateway, this.urls, file.uploadId!, signal, (err) => this.noStatusRead(err)),
        ),
      ctx.answerSettleMs,
      signal,
      { link: ctx.link, stallTimeoutMs: ctx.stallTimeoutMs, answered: () => ctx.storageAsked() },
    );
    const held = new Map<number, string>();
    const running: Promise<void>[] = [];
    let firstError: unknown;
    try {
      for (const n of partNumbers) {
        let slot: () => void;
        try {
          slot = await ctx.limiter.acquire(file.id, signal);
        } catch {
          break;
        }
        running.push(
          this.sendSettled(n, signal, slot, settler).then(
            (md5Etag) => void (md5Etag && held.set(n, md5Etag)),
            (err: unknown) => {
              firstError ??= err;
              round.abort();
            },
          ),
        );
      }
      await Promise.all(running);
    } finally {
      round.abort(); // nothing of this round runs any more
    }
    if (this.signal.aborted) throw new CancelledError();
    // Not credentialsRefusal: a part's gateway calls were judged where they were made (PresignedUrls),
    // and storage's answers (a 403 above all) never concern the queue's credentials (§7).
    if (firstError) throw firstError;
    return held;
  }

  /**
   * One part until storage has it: sent (sendPart), and where its answer was lost after the last
   * byte, settled before it is sent again. Resolves with its MD5 ETag when storage turned out to
   * hold it unanswered, else undefined. Throws NetworkError once it was sent in full more than the
   * part retries allow with no answer ever, and what sendPart or the settler throw.
   */
  private async sendSettled(
    n: number,
    signal: AbortSignal,
    slot: () => void,
    settler: AnswerSettler,
  ): Promise<string | undefined> {
    const { ctx, file } = this;
    const known = this.known?.[n - 1];
    const size = Math.min(file.partSize!, file.size - (n - 1) * file.partSize!);
    // The request slot for the next try: the first one's, then one a part given up kept while it was asked for.
    let nextSlot: (() => void) | undefined = slot;
    for (;;) {
      const check = () => this.unchanged.assert();
      const job = {
        file,
        partNumber: n,
        urls: this.urls,
        signal,
        backoff: this.backoff,
        tries: this.tries,
        check,
        ...(nextSlot ? { slot: nextSlot } : {}),
        ...(known ? { md5Etag: known } : {}),
      };
      nextSlot = undefined;
      const outcome = await sendPart(ctx, job);
      if (outcome.kind === 'stored') this.unchanged.noteSent(n, outcome.md5Etag);
      if (outcome.kind !== 'uncertain') return undefined;
      // Given up for lack of an answer, the part may still be on its way: it keeps its request
      // slot and is asked for longer (in-doubt.ts longSettleUntil), its bytes counted as in doubt on the link.
      const givenUp = outcome.error.givenUp;
      const undoubt = givenUp ? ctx.link.doubt(size) : () => {};
      let found: boolean;
      try {
        found = await settler.settle(n, givenUp, size);
      } catch (err) {
        outcome.slot?.();
        throw err;
      } finally {
        undoubt();
      }
      markUnanswered(ctx, file.id, n, null); // settled: found (reported with the file) or sent again now
      if (found) outcome.slot?.();
      else nextSlot = outcome.slot;
      if (found) {
        this.unchanged.noteSent(n, outcome.md5Etag);
        ctx.log.info(
          `Part ${n} of ${file.fileName}: its answer was lost after the last byte, but storage has it; not sent again`,
        );
        ctx.tracker.partDone(file.id, n, size);
        return outcome.md5Etag;
      }
      const tries = (this.tries.get(n) ?? 0) + 1;
      this.tries.set(n, tries);
      const error = outcome.error;
      // A network failure like any other (a proxy cutting long uploads, a flaky NAT): the file waits on the durable schedule.
      if (tries > ctx.partRetry.retries) {
        nextSlot?.();
        throw new NetworkError(
          `Part ${n} of ${file.fileName} was sent ${tries} times and storage never answered (${error.message})`,
          error.request,
          error.code,
        );
      }
      ctx.log.info(
        givenUp
          ? `Part ${n} of ${file.fileName}: sent in full, given up for lack of an answer, and storage did not show it while the link delivered nothing more, or delivered parts sent after it; sending it again`
          : `Part ${n} of ${file.fileName}: sent in full, no answer, and storage did not show it within ${Math.round(ctx.answerSettleMs / 1000)} s; sending it again`,
      );
    }
  }

  /**
   * §4.7: reports every part's ETag, ascending, in one call. Parts whose ETag was rebuilt from
   * their bytes are reported as MD5s while storage's ETags are (or may be) MD5s; if the service
   * refuses them (400), or they are not, the reconciling status read (§4.9) lets it count what
   * storage holds and the ETags storage did return are reported.
   */
  private async report(recovered: Map<number, string>): Promise<UploadRecord> {
    const { ctx, file } = this;
    ctx.ledger.flush();
    const sizeOf = (n: number) => Math.min(file.partSize!, file.size - (n - 1) * file.partSize!);
    const known: ReportedPart[] = ctx.queue
      .parts(file.id)
      .filter((p) => p.etag)
      .map((p) => ({ partNumber: p.partNumber, etag: p.etag!, size: p.size }));
    const complete = (parts: ReportedPart[]) =>
      this.gatewayCall((signal) => ctx.gateway.completeBatch(file.uploadId!, parts, signal)).catch((err: unknown) =>
        this.settleUnread(err),
      );
    if (recovered.size === 0) return complete(known);
    if (ctx.etagsAreMd5 !== false) {
      const rebuilt = [...recovered].map(([partNumber, etag]) => ({ partNumber, etag, size: sizeOf(partNumber) }));
      try {
        const record = await complete([...known, ...rebuilt].sort((a, b) => a.partNumber - b.partNumber));
        ctx.queue.recordParts(rebuilt.map((p) => ({ fileId: file.id, partNumber: p.partNumber, etag: p.etag })));
        return record;
      } catch (err) {
        if (!(err instanceof HttpStatusError && err.status === 400)) throw err;
        ctx.log.info(
          `The service refused the MD5 ETags of ${file.fileName}'s parts ${[...recovered.keys()].join(', ')} (${err.message}); reconciling with storage instead`,
        );
      }
    }
    const status = await this.gatewayCall((signal) => ctx.gateway.uploadStatus(file.uploadId!, true, signal)).catch(
      (err: unknown) => {
        if (!isStatusReadMissing(err)) throw err;
        throw new Error(
          `The service refused the rebuilt ETags of ${file.fileName} and has no upload status read (§4.9) to count the parts storage holds; remove the file and add it again`,
        );
      },
    );
    if (isFinalized(status) || known.length === 0) {
      if (isFinalized(status)) return status;
      throw new Error(
        `Storage holds every part of ${file.fileName}, but their ETags were lost and storage's ETags are not MD5 digests, so none can be reported; remove the file and add it again`,
      );
    }
    return complete(known);
  }

  /**
   * complete-batch (§4.7) answered something unreadable or nothing at all (200 with no body, 204:
   * a ResponseShapeError), which may come after the service finalized the file: the status reads
   * settle it before the file is failed. The upload's own (§4.9) answers with the record itself
   * (completed, or still uploading: the resume loop reports again); where the gateway has no such
   * read (404/405), the capture's (§4.8) settles it only when the whole capture is complete (every
   * file of it finalized; fewer files complete says nothing of this one). Throws `err` itself when
   * it is no such answer, and a ResponseShapeError saying neither read settled it otherwise.
   */
  private async settleUnread(err: unknown): Promise<UploadRecord> {
    if (!(err instanceof ResponseShapeError)) throw err;
    const { ctx, file } = this;
    ctx.log.info(
      `complete-batch for ${file.fileName} answered nothing readable (${err.message}); asking the status read whether the service finalized it`,
    );
    try {
      const record = await this.gatewayCall((signal) => ctx.gateway.uploadStatus(file.uploadId!, true, signal));
      if (record.status !== undefined || record.missingParts !== undefined) {
        if (!isFinalized(record)) this.unread = err.message;
        return record;
      }
    } catch (statusErr) {
      if (!isStatusReadMissing(statusErr)) throw statusErr;
    }
    const captureId = ctx.queue.capture(file.captureRow)?.captureId;
    if (captureId) {
      const c = await this.gatewayCall((signal) => ctx.gateway.captureUploadStatus(captureId, signal));
      const allDone =
        c.uploadStatus === 'complete' ||
        (c.expectedFiles !== undefined && c.expectedFiles > 0 && (c.completedFiles ?? 0) >= c.expectedFiles);
      if (allDone) return { status: 'completed' };
    }
    throw new ResponseShapeError(
      `${err.message}, and the status reads do not say the service finalized ${file.fileName}; retry the file to report its parts again`,
      err.request,
    );
  }

  /** A gateway call, with a refusal of the queue's credentials turned into CredentialsRefusedError. */
  private async gatewayCall<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await call(this.signal);
    } catch (err) {
      throw credentialsRefusal(err) ?? err;
    }
  }
}
