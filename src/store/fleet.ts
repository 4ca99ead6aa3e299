import type { StoreScope } from "./task-store.js";

/** Events another replica committed on a task: readers here catch up from the log. */
export interface TaskWake {
  readonly scope: StoreScope;
  readonly taskId: string;
  /** The first and last seq the committing unit logged for the task. */
  readonly fromSeq: number;
  readonly toSeq: number;
}

/** A task in flight whose replica stopped renewing its lease, claimed by this replica to be failed. */
export interface OrphanTask {
  readonly scope: StoreScope;
  readonly taskId: string;
  readonly contextId: string;
}

/**
 * What the replicas of a fleet (several hubs on one database) share beyond
 * the tables: wake-ups for stream readers, cancel requests to the replica
 * that runs a task's agent, and the sweep of tasks whose replica died.
 * A store without it (SQLite) is a fleet of one: every event is committed
 * here, every run is local, and the start-up recovery covers what a dead
 * process left.
 */
export interface Fleet {
  /** This process among the replicas; a new one at every start, so a restarted hub never owns what it ran before. */
  readonly replica: string;
  /** How often the engine sweeps for orphans (ms). */
  readonly sweepEveryMs: number;
  /** Listens for events committed by other replicas; returns the function that stops. */
  onWake(listener: (wake: TaskWake) => void): () => void;
  /**
   * Wake-ups may have been missed (the listening connection dropped and came
   * back): every reader must catch up from the log, which is the truth.
   */
  onLost(listener: () => void): () => void;
  /**
   * Has the task settled by the replica that may write it: its owner is asked to cancel its run
   * (a live replica), or its owner died and a sweep fails it. False when this replica holds it or
   * it is not in flight: this replica cancels it as its own.
   */
  requestCancel(scope: StoreScope, taskId: string): Promise<boolean>;
  /** Cancel requests addressed to this replica. */
  onCancelRequest(listener: (scope: StoreScope, taskId: string) => void): () => void;
  /**
   * Claims tasks in flight (SUBMITTED, WORKING) whose replica's lease has
   * expired; each is claimed by one sweeper only, and is loaded for writing.
   */
  sweep(): Promise<OrphanTask[]>;
}
