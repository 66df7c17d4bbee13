import type { CapturePlan, PlanMatch, PlanView, PlanWalk } from '../../shared/capture-plan.js';
import { EMPTY_PLAN, matchPlan, placementOfWalk } from '../../shared/capture-plan.js';
import type {
  CaptureForm,
  DetectedCardView,
  EventName,
  EventPayload,
  InspectResult,
  NamedStructure,
  ProposedCapture,
} from '../../shared/ipc.js';
import { describeRegistration, placementName } from '../../shared/registration.js';
import { reasonOf } from '../api/errors.js';
import type { Logger } from '../engine/engine.js';
import type { QueueDatabase } from '../queue/db.js';
import { readPlan, writePlan } from '../queue/plans.js';
import type { UploadQueue } from '../queue/queue.js';

/** What the capture planner needs from the app core: the queue, the screens' own handlers and the card imports. */
export interface CapturePlannerOptions {
  /** The queue's database while the queue is open: the plan lives there. */
  queueDb(): QueueDatabase | undefined;
  /** The queue while it is open, for the activity lines of what the plan queued with no click. */
  queue(): UploadQueue | undefined;
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  log?: Logger;
  /** The structures and designs with their names (Settings), for the sentences. */
  structures(): readonly NamedStructure[];
  /** The registration table's proposals for paths (the `capture:files.inspect` handler). */
  inspect(paths: string[]): Promise<InspectResult>;
  /** Queues the forms as the window's Register does (the `capture:captures.register` handler). */
  register(forms: CaptureForm[]): Promise<{ queued: number[]; refused: { path: string; reason: string }[] }>;
  /** Starts the import of a mounted card (CardImports.startImport), `by` said in the support log. */
  startImport(root: string, by: string): void;
  /** Whether cards are uploaded straight from the card (the library setting) rather than imported. */
  uploadFromCard(): boolean;
}

/** Whether a proposal can be registered at all (as the window's renderer/src/placement.ts isRegistrable says). */
const registrable = (p: ProposedCapture) => !p.violation && !p.alreadyQueued && !p.duplicateOf;

/**
 * The capture plan in the upload service: the Plan panel's reads and saves (`capture:plan.*`,
 * told to every window as `capture:event.plan`), and, when the plan says so (`autoRegister`), a
 * card that matches it goes to the queue with no click: as soon as it is inserted it is read,
 * matched (shared/capture-plan.ts matchPlan, as the window matches it), imported (or, with "Upload
 * straight from the card", read where it is) and its captures registered in the places the plan
 * gives, each with an activity line of kind `planned` (the queue's activity log and `capture-uploader
 * log`: the night's story), a notice and the support log's lines. A card that does not match it
 * waits for a person, offered as any card, and the support log says why.
 */
export class CapturePlanner {
  /** The cards already looked at since they were inserted (a card is matched once per insertion). */
  private readonly seen = new Set<string>();

  constructor(private readonly opts: CapturePlannerOptions) {}

  /** The plan as stored, or an empty one while the queue is not open. */
  view(): PlanView {
    const db = this.opts.queueDb();
    return db ? readPlan(db) : { ...EMPTY_PLAN, updatedAt: null };
  }

  /**
   * Stores `plan` whole and tells the windows. Throws Error before the app is set up (the plan is
   * kept in the queue), and SqliteError when it cannot be written (nothing changed then).
   */
  save(plan: CapturePlan): PlanView {
    const db = this.opts.queueDb();
    if (!db)
      throw new Error(
        'The app is not set up yet: open Settings and enter the service addresses and your account, or choose the local test service. The plan is kept with the upload queue.',
      );
    const view = writePlan(db, plan);
    this.opts.log?.info(
      `The capture plan was saved: ${view.days.length} day(s)${view.autoRegister ? ', a matching card goes to the queue with no click' : ''}.`,
    );
    this.opts.emit('capture:event.plan', view);
    return view;
  }

  /** "Tower A · Level 1", by the names in Settings (the ids when a name is not known). */
  placeOf(p: { structure: string; design?: string }): string {
    const s = this.opts.structures().find((x) => x.id === p.structure);
    const d = s?.designs.find((x) => x.id === p.design);
    return placementName(
      s?.name ?? `structure ${p.structure}`,
      p.design ? (d?.name ?? `design ${p.design}`) : undefined,
    );
  }

  /** "Tower A · Level 1 (interior)": a plan walk as the sentences name it. */
  nameOf(w: PlanWalk): string {
    return `${this.placeOf(w)} (${w.type})`;
  }

  /**
   * The cards mounted now (CardImports's watch): each card inserted since the last look is matched
   * to the plan once, when the plan sends matching cards to the queue with no click. Answers when
   * every such card is done with; a failure is logged, and the card is then offered as any card.
   */
  async onCards(cards: readonly DetectedCardView[]): Promise<void> {
    const mounted = new Set(cards.map((c) => c.root));
    for (const root of this.seen) if (!mounted.has(root)) this.seen.delete(root);
    const fresh = cards.filter((c) => !this.seen.has(c.root) && !c.inUse);
    for (const c of fresh) this.seen.add(c.root);
    const plan = this.view();
    if (!plan.autoRegister || plan.days.length === 0) return;
    for (const card of fresh) {
      try {
        await this.placeCard(card, plan);
      } catch (err) {
        this.opts.log?.warn(`Card ${card.name} was not placed by the capture plan: ${reasonOf(err)}`);
      }
    }
  }

  /** Matches one card to the plan and, when it matches whole, imports it and registers it with no click. */
  private async placeCard(card: DetectedCardView, plan: PlanView): Promise<void> {
    const { captures } = await this.opts.inspect([card.root]);
    const ready = captures.filter(registrable);
    if (ready.length === 0) return;
    const match = matchPlan(
      ready.map((p) => ({ key: p.key, at: Date.parse(p.capturedAt), camera: p.media.camera?.serialNumber })),
      plan,
      { nameOf: (w) => this.nameOf(w) },
    );
    if (!match.complete) {
      this.opts.log?.info(
        `Card ${card.name} does not match the capture plan; it waits for a person: ${match.problems.join(' ')}`,
      );
      return;
    }
    const fromCard = this.opts.uploadFromCard();
    if (!fromCard) this.opts.startImport(card.root, 'the capture plan');
    const forms: CaptureForm[] = ready.map((p) => ({
      ...placementOfWalk(match.placements.get(p.key)!.walk),
      capturedAt: p.capturedAt,
      paths: p.files.map((f) => f.path),
      ...(p.warnings?.length ? { warnings: p.warnings } : {}),
    }));
    const { queued, refused } = await this.opts.register(forms);
    this.notePlaced(queued, ready, match);
    const where = describeRegistration(forms, (p) => this.placeOf(p));
    const sentence =
      `Card ${card.name} matched the capture plan (${match.matched.join('; ')}): ${where}, ` +
      `${fromCard ? 'read from the card' : 'imported'} and queued with no click.` +
      (refused.length ? ` ${refused.length} file(s) were not queued: see the queue's activity log.` : '') +
      (captures.length > ready.length
        ? ` ${captures.length - ready.length} recording(s) on it cannot be registered or are queued already.`
        : '');
    this.opts.log?.info(sentence);
    this.opts.emit('capture:event.notice', { level: 'info', message: sentence });
  }

  /** One `planned` activity line per capture queued: which walk of which plan day put it where. */
  private notePlaced(queued: readonly number[], ready: readonly ProposedCapture[], match: PlanMatch): void {
    const queue = this.opts.queue();
    if (!queue) return;
    const byPath = new Map(ready.flatMap((p) => p.files.map((f) => [f.path, p] as const)));
    for (const row of queued) {
      const capture = queue.capture(row);
      const files = queue.filesOf(row);
      // Queued at the card's path or at its verified copy (same name): found by either.
      const proposal =
        files.map((f) => byPath.get(f.path)).find(Boolean) ??
        ready.find((p) => p.files.some((pf) => files.some((f) => f.fileName === pf.name)));
      const placed = proposal && match.placements.get(proposal.key);
      if (!capture || !placed) continue;
      const who = placed.day.camera ? `camera ${placed.day.camera}` : 'any camera';
      queue.activity.add({
        captureRow: row,
        fileId: null,
        subject: capture.label,
        kind: 'planned',
        message: `Placed by the capture plan (${who}, ${placed.day.day}: walk ${placed.planWalk} of ${placed.day.walks.length}, ${this.nameOf(placed.walk)}) and queued with no click.`,
      });
    }
  }
}
