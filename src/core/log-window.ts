/**
 * At most one log line per window for a condition that repeats in bursts:
 * a store outage fails every unit of work and strands every task in flight
 * until it ends, and its edges flap (a commit on a fresh connection between
 * failures on broken ones), so "once per outage" would still be several
 * lines. What the window holds back, the caller counts.
 */
export class LogWindow {
  private openedAt = -Infinity;

  constructor(private readonly ms: number) {}

  /** Whether a line may be logged now; if so, the next one waits a whole window. */
  take(now = Date.now()): boolean {
    if (now - this.openedAt < this.ms) return false;
    this.openedAt = now;
    return true;
  }
}

/** The window for store-outage lines: one per 30 s. */
export const OUTAGE_LOG_WINDOW_MS = 30_000;
