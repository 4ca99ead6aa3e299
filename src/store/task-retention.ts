import type { MaybePromise, StoreScope } from "./task-store.js";

/**
 * The instants before which a scope's settled tasks have expired (epoch ms,
 * judged by each task's last status time); undefined: that kind is kept.
 */
export interface RetentionCutoffs {
  /** Tasks COMPLETED, FAILED, CANCELED or REJECTED with a last status before this go. */
  readonly terminalBeforeMs?: number;
  /** Tasks INPUT_REQUIRED or AUTH_REQUIRED untouched since before this go. */
  readonly interruptedBeforeMs?: number;
}

/** A part of the database and the bytes it takes (a file, or a table with its indexes and TOAST). */
export interface StoragePart {
  readonly part: string;
  readonly bytes: number;
}

/**
 * What a retention sweep asks of a store. A task is deleted with every row
 * that belongs to it (history, artifacts, event log, push configs, its
 * outbox rows and delivery record, send-ledger entries naming it) and its
 * state counter, in one transaction; from then on it is missing on every
 * operation. A task that still owes a webhook (an outbox row neither
 * delivered nor dead) is kept until that delivery settles.
 */
export interface TaskRetention {
  /** The scopes that hold tasks now. */
  scopes(): MaybePromise<StoreScope[]>;
  /** Ids of at most `limit` tasks of the scope that have expired by `cutoffs`, oldest first. */
  expired(scope: StoreScope, cutoffs: RetentionCutoffs, limit: number): MaybePromise<string[]>;
  /**
   * Deletes those of `ids` that are still expired by `cutoffs` and owe no
   * webhook; returns the ids deleted. In a fleet one replica deletes at a
   * time: another's call meanwhile deletes nothing and returns [].
   */
  delete(scope: StoreScope, cutoffs: RetentionCutoffs, ids: readonly string[]): MaybePromise<string[]>;
  /** Per tenant, the oldest last status time of its tasks (epoch ms). */
  oldest(): MaybePromise<Array<{ tenant: string; statusMs: number }>>;
  /** What the database takes on disk, by part. */
  size(): MaybePromise<StoragePart[]>;
  /** Gives up to `pages` free pages back to the file system; returns how many it gave (0: nothing to give, or not supported; -1: busy now, ask again later). */
  reclaim(pages: number): MaybePromise<number>;
}
