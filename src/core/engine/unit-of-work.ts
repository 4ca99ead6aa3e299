import type { TaskStore } from "../../store/index.js";
import { A2AError } from "../../protocol/index.js";
import { LogWindow, OUTAGE_LOG_WINDOW_MS } from "../log-window.js";
import type { Logger } from "../logger.js";
import { clientError } from "../store-outage.js";

/** What is run once a unit of work commits, and what is run instead when it rolls back. */
interface Effect {
  /** Absent for a write that tells nobody when it lands, only when it does not. */
  readonly committed?: () => void;
  readonly rolledBack?: (error: unknown) => void;
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (e: unknown) => void;
}

/** One unit of work: what to run once it commits, and who waits for that. */
interface Unit {
  readonly effects: Effect[];
  readonly waiters: Waiter[];
  /** Check phases passed since it opened. */
  turns: number;
  /** The write count at the last of them: equal at the next one when that turn wrote nothing. */
  writesSeen: number;
}

/** The most turns a unit stays open while every turn adds writes. */
const MAX_TURNS = 4;

/**
 * Group commit: every write made over a few turns of the event loop, by
 * any request or agent, goes into one store transaction. A burst of 32
 * requests then costs one commit instead of 32, which is most of what a
 * durable write costs.
 *
 * When a unit commits: at the end (the check phase, after the poll has
 * handed every ready request to its handler) of the second turn after it
 * opened, or of a later one while writes keep coming: a turn that added a
 * write keeps the unit open for one more, up to MAX_TURNS. Why: a request
 * often reaches the hub in two reads (an h2 HEADERS frame and its DATA, a
 * body in two TCP segments), and under load the requests of 32 clients
 * arrive spread over several turns; a unit cut at a fixed turn carries
 * only part of them (requests per commit under each rule:
 * docs/performance-notes.md). An idle
 * hub still commits a lone request after two turns (its poll does not wait
 * while an immediate is due), and a writer that never pauses (an SSE
 * stream) is cut every MAX_TURNS turns.
 *
 * The durability promise holds because nothing is announced before the
 * commit: bus events, first outcomes and answers wait for it
 * (`afterCommit`, `durable`).
 *
 * A store whose commit is a round trip (PostgreSQL) commits one unit at a
 * time: writes made while a unit is in flight open the next one, which is
 * committed when the first returns. The longer the round trip, the more
 * each unit carries, so group commit grows with the latency by itself.
 */
export class UnitOfWork {
  /** The unit taking writes now; undefined when none is open. */
  private open_: Unit | undefined;
  /** The unit whose commit is in flight (a store answering asynchronously). */
  private flying: Unit | undefined;
  /** The open unit's turn ended while another was in flight: commit it when that one returns. */
  private commitWanted = false;
  /** Writes opened so far, over every unit: a turn that added none ends its unit. */
  private writes = 0;
  /** Failed units not logged one by one: counted into one line once units commit again. */
  private failedUnlogged = 0;
  /** One "committing failed" line per window; the failures it holds back are counted. */
  private readonly failureLog = new LogWindow(OUTAGE_LOG_WINDOW_MS);

  constructor(
    private readonly store: TaskStore,
    private readonly logger: Logger,
  ) {}

  /** Whether some writes made so far are not yet durable (a unit open or in flight). */
  get isOpen(): boolean {
    return this.open_ !== undefined || this.flying !== undefined;
  }

  /** Counts a write, opening a unit for it if none is open. */
  open(): void {
    this.writes++;
    if (this.open_) return;
    // Begun first: a store that cannot open a transaction fails this write
    // alone, instead of leaving a unit open that nothing will ever commit.
    this.store.beginBatch();
    const unit: Unit = { effects: [], waiters: [], turns: 0, writesSeen: this.writes };
    this.open_ = unit;
    setImmediate(() => this.turnEnded(unit));
  }

  /** The check phase of a turn since `unit` opened: commit it, or keep it open one more turn (the class comment says when). */
  private turnEnded(unit: Unit): void {
    // Committed already (a stop's flush): a later unit keeps its own turns.
    if (this.open_ !== unit) return;
    unit.turns++;
    const quiet = unit.writesSeen === this.writes;
    unit.writesSeen = this.writes;
    if (unit.turns >= MAX_TURNS || (unit.turns >= 2 && quiet)) this.commit();
    // An immediate queued by an immediate runs in the next turn, after that turn's poll.
    else setImmediate(() => this.turnEnded(unit));
  }

  /**
   * Runs `committed` once everything written so far has committed (at once
   * when nothing is pending); `rolledBack` instead when that commit failed,
   * so that nobody waits for an outcome that will never come.
   */
  afterCommit(committed: (() => void) | undefined, rolledBack?: (error: unknown) => void): void {
    const unit = this.open_ ?? this.flying;
    if (unit) unit.effects.push({ committed, rolledBack });
    else committed?.();
  }

  /**
   * Resolves once everything written so far is durable: at once when
   * nothing is pending, else when the last pending unit commits. Rejects
   * when that commit failed: what the caller wrote was never stored.
   */
  durable(): Promise<void> {
    const unit = this.open_ ?? this.flying;
    if (!unit) return Promise.resolve();
    return new Promise((resolve, reject) => unit.waiters.push({ resolve, reject }));
  }

  /** Commits the open unit now (the end of its turn), or once the unit in flight returns. */
  commit(): void {
    if (this.flying) {
      this.commitWanted = true;
      return;
    }
    const unit = this.open_;
    if (!unit) return;
    this.open_ = undefined;
    let pending: ReturnType<TaskStore["commitBatch"]>;
    try {
      pending = this.store.commitBatch();
    } catch (e) {
      this.store.rollbackBatch();
      this.failed(unit, e);
      return;
    }
    if (!(pending instanceof Promise)) {
      this.committed(unit);
      return;
    }
    this.flying = unit;
    // The store has already set the failed unit aside: rollbackBatch() now
    // would drop the next unit, which is open and has its own commit coming.
    pending.then(
      () => this.landed(unit),
      (e: unknown) => this.landed(unit, e),
    );
  }

  /** Commits whatever is pending and resolves once it is durable (or rejects when it was not stored): for a stop. */
  async flush(): Promise<void> {
    this.commit();
    await this.durable();
  }

  private landed(unit: Unit, error?: unknown): void {
    this.flying = undefined;
    if (error === undefined) this.committed(unit);
    else this.failed(unit, error);
    if (this.commitWanted) {
      this.commitWanted = false;
      this.commit();
    }
  }

  private committed(unit: Unit): void {
    if (this.failedUnlogged > 0) this.logger.error("units of work failed while the task store could not commit; none of their events were stored", { units: this.failedUnlogged });
    this.failedUnlogged = 0;
    for (const effect of unit.effects) if (effect.committed) this.run(effect.committed);
    for (const w of unit.waiters) w.resolve();
  }

  private failed(unit: Unit, e: unknown): void {
    // An outage fails every unit until the store is back, and its edges flap (a commit on a fresh connection
    // between failures on broken ones): one failure is logged per window, the rest counted once units commit again.
    if (this.failureLog.take()) {
      this.logger.error("committing task events failed; they were not stored", { error: String(e) });
    } else {
      this.failedUnlogged++;
    }
    const error = storeFailure(e);
    for (const effect of unit.effects) if (effect.rolledBack) this.run(() => effect.rolledBack!(error));
    for (const w of unit.waiters) w.reject(error);
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

/**
 * What the callers of a failed unit are told: the store was unreachable (a
 * networked store: the client may retry, §5.4 UNAVAILABLE) or it refused
 * the change (an internal error); either way the change did not happen.
 */
function storeFailure(e: unknown): A2AError {
  const told = clientError(e);
  if (told instanceof A2AError) return told;
  return new A2AError("Internal", "the server could not store this change; it did not happen");
}
