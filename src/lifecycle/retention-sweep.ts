import type { StoreScope, TaskRetention } from "../store/index.js";
import { cutoffsFor, type RetentionPolicy } from "./retention-policy.js";

/** How a sweep runs, and what it tells. */
export interface RetentionSweepOptions {
  readonly retention: TaskRetention;
  readonly policy: RetentionPolicy;
  /**
   * A task a run or a reader of this process holds now (a stream still
   * reading its events): it is left for a later pass, so no stream is cut
   * before its end.
   */
  readonly busy: (scope: StoreScope, taskId: string) => boolean;
  /** Tasks deleted per transaction at most (default 50: a few milliseconds of work). */
  readonly batch?: number;
  /** Pause between two batches, so requests go first (ms, default 20). */
  readonly pauseMs?: number;
  /** Pause between two passes over every scope (ms, default 30 s). */
  readonly intervalMs?: number;
  /** The clock expiry is judged by (default Date.now). */
  readonly now?: () => number;
  readonly onDeleted?: (scope: StoreScope, n: number) => void;
  readonly onError?: (error: Error) => void;
}

/** Free pages given back per step. */
const RECLAIM_PAGES = 256;
/** A batch that deleted nothing (a unit open, another replica sweeping) is tried again this often before the scope waits for the next pass. */
const RETRIES = 5;

/**
 * The background retention sweep: every `intervalMs`, a pass over the
 * scopes that hold tasks, deleting the expired ones in bounded batches
 * with a pause between batches, then giving freed space back in bounded
 * steps. Off the request path: a batch is one short transaction, and the
 * event loop serves requests between batches.
 */
export class RetentionSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;
  private readonly batch: number;
  private readonly pauseMs: number;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(private readonly options: RetentionSweepOptions) {
    this.batch = options.batch ?? 50;
    this.pauseMs = options.pauseMs ?? 20;
    this.intervalMs = options.intervalMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** Starts the passes: the first soon after start, then every intervalMs. */
  start(): void {
    this.schedule(Math.min(this.intervalMs, 1_000));
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.pass().finally(() => this.schedule(this.intervalMs));
    }, ms);
    this.timer.unref();
  }

  /** One pass over every scope now (or the one under way); resolves with the tasks it deleted. */
  pass(): Promise<number> {
    return (this.running ??= this.sweep()
      .catch((e: unknown) => {
        this.options.onError?.(e instanceof Error ? e : new Error(String(e)));
        return 0;
      })
      .finally(() => (this.running = undefined)));
  }

  /** Stops the passes; resolves once the one under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private async sweep(): Promise<number> {
    const { retention } = this.options;
    let deleted = 0;
    for (const scope of await retention.scopes()) {
      if (this.stopped) break;
      deleted += await this.sweepScope(scope);
    }
    // Freed pages back to the file system, a bounded step per turn (every pass: a busy store may have put the last one off).
    for (let busy = 0; !this.stopped && busy < RETRIES; ) {
      const given = await retention.reclaim(RECLAIM_PAGES);
      if (given === 0) break;
      if (given < 0) busy++;
      await this.pause();
    }
    return deleted;
  }

  private async sweepScope(scope: StoreScope): Promise<number> {
    const { retention, busy } = this.options;
    let deleted = 0;
    let misses = 0;
    while (!this.stopped) {
      const cutoffs = cutoffsFor(this.options.policy, scope, this.now());
      if (!cutoffs) return deleted;
      const found = await retention.expired(scope, cutoffs, this.batch);
      const free = found.filter((id) => !busy(scope, id));
      if (free.length === 0) return deleted;
      const gone = await retention.delete(scope, cutoffs, free);
      if (gone.length > 0) {
        deleted += gone.length;
        this.options.onDeleted?.(scope, gone.length);
      } else if (++misses >= RETRIES) return deleted;
      if (found.length < this.batch && gone.length === free.length) return deleted;
      await this.pause();
    }
    return deleted;
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.pauseMs).unref());
  }
}
