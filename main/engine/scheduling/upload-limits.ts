import { parseBandwidth } from '../../../shared/bandwidth.js';
import { applyTimetable } from './bandwidth-timetable.js';
import type { UploadEngine } from '../engine.js';
import type { SettingsRepository } from '../../settings/settings.js';

/** The longest a timer may be set for in Node (about 24.8 days); longer waits are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The desktop app's upload limits over a running engine: a single bandwidth limit or a daily
 * timetable (shared/bandwidth.ts), kept in settings; and "Pause until" a time, a queue-wide hold
 * kept in the queue itself (UploadEngine.holds), apart from each file's own pause: when it
 * ends, files a person paused one by one stay paused, and captures added meanwhile start then.
 */
export class UploadLimits {
  private stopTimetable?: () => void;
  private holdTimer?: NodeJS.Timeout;
  private engine?: UploadEngine;

  /** `resumed` is called when a hold ended (the app starts draining again). */
  constructor(
    private readonly settings: SettingsRepository,
    private readonly resumed: () => void,
  ) {}

  /**
   * Applies the stored limits to a newly opened engine and arms the end of a person's hold kept
   * in its queue. A "pause until" kept in settings by an earlier version is carried into the
   * queue once (if still ahead) and cleared there.
   */
  attach(engine: UploadEngine): void {
    this.detach();
    this.engine = engine;
    const s = this.settings.stored();
    this.applyLimit(s?.bandwidthBytesPerSecond ?? null, s?.bandwidthTimetable ?? null);
    if (s?.pausedUntil) {
      if (Date.parse(s.pausedUntil) > Date.now() && !engine.holds.current) engine.holds.holdUntil(s.pausedUntil);
      this.settings.setPausedUntil(null);
    }
    this.armHold();
  }

  /** Stops the timers (the engine is closing); the hold stays in the queue. */
  detach(): void {
    this.stopTimetable?.();
    this.stopTimetable = undefined;
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    this.engine = undefined;
  }

  /**
   * Sets and keeps a single limit (bytes per second, or null) or a timetable (its text, which then
   * decides). Returns the limit in force now. Throws Error naming the timetable's mistake.
   */
  set(bytesPerSecond: number | null, timetable: string | null): number | null {
    if (timetable) parseBandwidth(timetable); // refuse a bad timetable before keeping it
    this.settings.setBandwidth(bytesPerSecond, timetable);
    return this.applyLimit(bytesPerSecond, timetable);
  }

  /**
   * Holds the whole queue until `until` (ISO 8601), kept in the queue; null ends the hold now.
   * Throws Error when no queue is open, SqliteError when the queue cannot be written.
   */
  pauseUntil(until: string | null): void {
    const engine = this.engine;
    if (!engine) throw new Error('The app is not set up yet: open Settings first.');
    if (until === null) engine.holds.release();
    else engine.holds.holdUntil(until);
    this.armHold();
    if (until === null) this.resumed();
  }

  /** Ends a person's hold at its time, however far (timers are re-armed past Node's limit). */
  private armHold(): void {
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    const engine = this.engine;
    const until = engine?.holds.person?.until;
    if (!engine || !until) return;
    const at = Date.parse(until);
    const wait = at - Date.now();
    if (wait <= 0) {
      engine.holds.release();
      this.resumed();
      return;
    }
    this.holdTimer = setTimeout(() => this.armHold(), Math.min(wait, MAX_TIMER_MS));
    this.holdTimer.unref?.();
  }

  private applyLimit(bytesPerSecond: number | null, timetable: string | null): number | null {
    this.stopTimetable?.();
    this.stopTimetable = undefined;
    const engine = this.engine;
    if (!engine) return bytesPerSecond;
    if (!timetable) {
      engine.setBandwidth(bytesPerSecond);
      return bytesPerSecond;
    }
    // The timetable's pause hours end by its own ticks; the drain is woken by the engine.
    this.stopTimetable = applyTimetable(engine, parseBandwidth(timetable), () => this.resumed());
    return engine.bandwidthLimit;
  }
}
