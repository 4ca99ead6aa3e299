import type { TaskStore } from "../store/index.js";
import { A2AError } from "../protocol/index.js";
import type { Logger } from "./logger.js";

/** What is run once a unit of work commits, and what is run instead when it rolls back. */
interface Effect {
  readonly committed: () => void;
  readonly rolledBack?: (error: unknown) => void;
}

/**
 * Group commit: every write made in one turn of the event loop, by any
 * request or agent, goes into one store transaction, committed at the end
 * of that turn (setImmediate runs after the poll phase has handed every
 * ready request to its handler). A burst of 32 requests then costs one
 * commit instead of 32, which is most of what a durable write costs.
 *
 * The durability promise holds because nothing is announced before the
 * commit: bus events, first outcomes and answers wait for it
 * (`afterCommit`, `durable`). Reads made while a unit is open see its
 * writes (one connection), so an answer built from them must also wait:
 * the service awaits `durable()` before any answer leaves.
 */
export class UnitOfWork {
  /** Effects of the open unit; undefined when none is open. */
  private effects: Effect[] | undefined;
  /** Callers waiting for the open unit to commit. */
  private waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];

  constructor(
    private readonly store: TaskStore,
    private readonly logger: Logger,
  ) {}

  /** Whether a unit is open: writes made now are not yet durable. */
  get isOpen(): boolean {
    return this.effects !== undefined;
  }

  /** Opens a unit for this turn of the event loop if none is open. */
  open(): void {
    if (this.effects) return;
    // Begun first: a store that cannot open a transaction fails this write
    // alone, instead of leaving a unit open that nothing will ever commit.
    this.store.beginBatch();
    this.effects = [];
    setImmediate(() => this.commit());
  }

  /**
   * Runs `committed` once the open unit has committed (at once when none is
   * open); `rolledBack` instead when its commit failed, so that nobody waits
   * for an outcome that will never come.
   */
  afterCommit(committed: () => void, rolledBack?: (error: unknown) => void): void {
    if (this.effects) this.effects.push({ committed, rolledBack });
    else committed();
  }

  /**
   * Resolves once everything written so far is durable: at once when no
   * unit is open, else when the open one commits. Rejects when that commit
   * failed: what the caller read from it was never stored.
   */
  durable(): Promise<void> {
    if (!this.effects) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Commits the open unit now (a stop, or the end of the turn). */
  commit(): void {
    const effects = this.effects;
    if (!effects) return;
    const waiters = this.waiters;
    this.effects = undefined;
    this.waiters = [];
    try {
      this.store.commitBatch();
    } catch (e) {
      this.store.rollbackBatch();
      this.logger.error("committing task events failed; they were not stored", { error: String(e) });
      const error = new A2AError("Internal", "the server could not store this change; it did not happen");
      for (const effect of effects) if (effect.rolledBack) this.run(() => effect.rolledBack!(error));
      for (const w of waiters) w.reject(error);
      return;
    }
    for (const effect of effects) this.run(effect.committed);
    for (const w of waiters) w.resolve();
  }

  /** One effect failing must not keep the others from running (each tells someone something). */
  private run(effect: () => void): void {
    try {
      effect();
    } catch (e) {
      this.logger.error("an effect of a committed unit of work failed", { error: String(e) });
    }
  }
}
