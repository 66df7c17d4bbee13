import { parseBandwidth } from '../shared/bandwidth.js';
import { applyTimetable } from './bandwidth-timetable.js';
import type { UploadEngine } from './engine/engine.js';
import type { SettingsRepository } from './settings.js';

/** The longest a timer may be set for in Node (about 24.8 days); longer waits are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The desktop app's upload limits over a running engine, kept in settings so they hold across
 * restarts: a single bandwidth limit or a daily timetable (shared/bandwidth.ts), and "pause
 * every upload until" a time, after which the paused files are resumed by themselves.
 */
export class UploadLimits {
  private stopTimetable?: () => void;
  private pauseTimer?: NodeJS.Timeout;
  private engine?: UploadEngine;

  /** `resumed` is called after the pause ends and files were resumed (the app starts draining again). */
  constructor(
    private readonly settings: SettingsRepository,
    private readonly resumed: () => void,
  ) {}

  /** Applies the stored limits to a newly opened engine (resuming at once if the pause already ended). */
  attach(engine: UploadEngine): void {
    this.detach();
    this.engine = engine;
    const s = this.settings.stored();
    this.applyLimit(s?.bandwidthBytesPerSecond ?? null, s?.bandwidthTimetable ?? null);
    const until = s?.pausedUntil;
    if (until) this.armPause(Date.parse(until));
  }

  /** Stops the timers (the engine is closing). */
  detach(): void {
    this.stopTimetable?.();
    this.stopTimetable = undefined;
    clearTimeout(this.pauseTimer);
    this.pauseTimer = undefined;
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

  /** Pauses every upload until `until` (ISO 8601) and keeps it; null resumes every paused file now. */
  pauseUntil(until: string | null): void {
    this.settings.setPausedUntil(until);
    clearTimeout(this.pauseTimer);
    if (until === null) {
      this.engine?.resumeAll();
      this.resumed();
      return;
    }
    this.engine?.pauseAll();
    this.armPause(Date.parse(until));
  }

  private armPause(at: number): void {
    const wait = at - Date.now();
    if (wait <= 0) {
      this.pauseUntil(null);
      return;
    }
    this.pauseTimer = setTimeout(() => this.armPause(at), Math.min(wait, MAX_TIMER_MS));
    this.pauseTimer.unref?.();
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
    this.stopTimetable = applyTimetable(engine, parseBandwidth(timetable));
    return engine.bandwidthLimit;
  }
}
