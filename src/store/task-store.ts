import type {
  Artifact,
  Message,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskState,
  TaskStatus,
} from "../../gen/a2a/v1/a2a_pb.js";
import type { Fleet } from "./fleet.js";
import type { TaskRetention } from "./task-retention.js";

/** The boundary of every query (§13.1): a tenant and one of the agents it calls. */
export interface StoreScope {
  readonly tenant: string;
  readonly agentId: string;
}

/** What the store knows about a task without loading its history or artifacts. */
export interface TaskHead {
  readonly id: string;
  readonly contextId: string;
  readonly state: TaskState;
  /** Sequence number of the task's last logged event. */
  readonly lastSeq: number;
  /**
   * Another live replica of the fleet runs the task's agent now (a store
   * shared by several hubs); a message to the task then joins that run,
   * as it joins a run of this process.
   */
  readonly runningElsewhere?: boolean;
}

/** One entry of a task's event log. */
export interface LoggedEvent {
  readonly seq: number;
  readonly event: StreamResponse;
}

/** How much of a task to load. */
export interface TaskView {
  /** §3.2.4: undefined = all, 0 = none, n = the n most recent. */
  readonly historyLength?: number;
  /** Artifacts are loaded unless false (§3.1.4 omits them from lists by default). */
  readonly includeArtifacts?: boolean;
}

/** Position in the newest-first order of ListTasks: keyset pagination. */
export interface ListCursor {
  readonly statusMs: number;
  readonly touch: number;
}

/** Filters and page of ListTasks, already validated by core. */
export interface TaskQuery extends TaskView {
  readonly contextId?: string;
  readonly state?: TaskState;
  /** Only tasks whose status timestamp is after this instant (epoch ms). */
  readonly statusAfterMs?: number;
  readonly after?: ListCursor;
  readonly limit: number;
}

/** One page of ListTasks. */
export interface TaskPage {
  readonly tasks: Task[];
  /** Cursor of the last task of the page when more follow, else undefined. */
  readonly next?: ListCursor;
  /** Count of all tasks matching the filters. */
  readonly total: number;
}

/** One pending webhook delivery from the push outbox (§3.5.3). */
export interface PushDelivery {
  readonly id: number;
  readonly scope: StoreScope;
  readonly taskId: string;
  readonly config: TaskPushNotificationConfig;
  /** Sequence number of the event in the task's log (of the terminal event, for the final Task). */
  readonly seq: number;
  /** A logged event, or the final Task snapshot after a terminal state. */
  readonly payload: StreamResponse;
  /** Attempts made so far. */
  readonly attempts: number;
  /** The A2A version the config was created under ("1.0" or "0.3"). */
  readonly version: string;
}

/** A new task: its first status, the message that started it, and the creation event (seq 1). */
export interface NewTask {
  readonly id: string;
  readonly contextId: string;
  readonly status: TaskStatus;
  readonly history: readonly Message[];
  readonly metadata?: Task["metadata"];
}

/**
 * What names a send in the ledger: the client's messageId (§3.3.1, when
 * retries by messageId are on) or an Idempotency-Key request header (IETF
 * httpapi-idempotency-key draft). The two are separate namespaces.
 */
export interface SendKey {
  readonly by: "messageId" | "idempotencyKey";
  readonly value: string;
}

/**
 * What became of a client message (§3.3.1): the task it started or joined,
 * or the agent's direct reply. `fingerprint` identifies the message's content.
 */
export interface SentMessage {
  readonly key: SendKey;
  readonly fingerprint: Uint8Array;
  readonly taskId?: string;
  readonly reply?: Message;
}

/** An artifact change, as §4.2.2 describes it. */
export interface ArtifactChange {
  readonly artifact: Artifact;
  readonly append: boolean;
  readonly lastChunk: boolean;
}

/**
 * A value now, or a promise of it. The SQLite store answers synchronously
 * (one connection in process); a networked store (PostgreSQL) answers
 * reads with promises. Core awaits every read, which costs the synchronous
 * store one microtask and lets both stand behind one contract.
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Durable storage of tasks, their history, artifacts, event log and push
 * configs, shaped as units of work: `beginBatch()` opens a unit, writes go
 * into it and return at once (the seq the event will have once the unit
 * commits), and `commitBatch()` makes the whole unit durable in one
 * transaction (one fsync for SQLite, one round trip for PostgreSQL).
 *
 * Rules core keeps, so that a networked store can answer writes without a
 * round trip each:
 * - a task is written only after the store has seen it in this process
 *   (created, or read by getHead / getTask / snapshot), so the store knows
 *   its last seq and its artifacts;
 * - a read never relies on seeing writes of a unit not yet committed
 *   (SQLite would show them, PostgreSQL would not): core awaits the unit first;
 * - nobody is told of a write before its unit committed (UnitOfWork).
 * Appending an event, a message or an artifact chunk costs O(1) rows.
 */
export interface TaskStore {
  /** Stores a new task and logs `event` as its first event; returns its seq. */
  createTask(scope: StoreScope, task: NewTask, event: StreamResponse): number;
  getHead(scope: StoreScope, taskId: string): MaybePromise<TaskHead | undefined>;
  getTask(scope: StoreScope, taskId: string, view?: TaskView): MaybePromise<Task | undefined>;
  /** The same Task in protobuf binary, for a store that holds its bytes: what a gRPC answer carries, never decoded (core/wire-answer.ts). */
  getTaskWire?(scope: StoreScope, taskId: string, view?: TaskView): MaybePromise<Uint8Array | undefined>;
  /** A task snapshot and the seq it reflects, read together. */
  snapshot(scope: StoreScope, taskId: string, view?: TaskView): MaybePromise<{ task: Task; seq: number } | undefined>;
  /** Adds a message to the history without logging an event. */
  appendHistory(scope: StoreScope, taskId: string, message: Message): void;
  /** Sets the status (its message joins the history) and logs the event; returns its seq. */
  setStatus(scope: StoreScope, taskId: string, status: TaskStatus, event: StreamResponse): number;
  /** Applies an artifact change and logs the event; returns its seq. */
  changeArtifact(scope: StoreScope, taskId: string, change: ArtifactChange, event: StreamResponse): number;
  /** Whether an artifact is sealed by a lastChunk; undefined when the task has no such artifact. */
  artifactSealed(scope: StoreScope, taskId: string, artifactId: string): boolean | undefined;
  /** Logged events with seq > afterSeq, in order; at most `limit` of them when given. */
  eventsAfter(scope: StoreScope, taskId: string, afterSeq: number, limit?: number): MaybePromise<LoggedEvent[]>;
  listTasks(scope: StoreScope, query: TaskQuery): MaybePromise<TaskPage>;
  /** Records the outcome of a client message; the first record of a key wins. */
  rememberSent(scope: StoreScope, sent: SentMessage): void;
  /** The recorded outcome of the send with this key, if any. */
  findSent(scope: StoreScope, key: SendKey): MaybePromise<SentMessage | undefined>;
  /** Tasks left SUBMITTED or WORKING by a previous process, across every scope. */
  inFlight(): MaybePromise<Array<{ scope: StoreScope; taskId: string; contextId: string }>>;

  /** Stores a config; `version` is the A2A version it was created under (default "1.0"). */
  putPushConfig(scope: StoreScope, config: TaskPushNotificationConfig, version?: string): void;
  getPushConfig(scope: StoreScope, taskId: string, id: string): MaybePromise<TaskPushNotificationConfig | undefined>;
  listPushConfigs(scope: StoreScope, taskId: string): MaybePromise<TaskPushNotificationConfig[]>;
  countPushConfigs(scope: StoreScope, taskId: string): MaybePromise<number>;
  /** Removes one config; true when a row was deleted. */
  deletePushConfig(scope: StoreScope, taskId: string, id: string): MaybePromise<boolean>;

  /**
   * Deliveries due at `nowMs`, oldest first, at most one per (task, config):
   * a later event waits until every earlier one to the same config is
   * delivered or dead, so webhooks see events in order.
   */
  dueDeliveries(nowMs: number, limit: number): MaybePromise<PushDelivery[]>;
  /** When the earliest pending delivery falls due, or undefined when none is pending. */
  nextDeliveryAt(): MaybePromise<number | undefined>;
  /** A delivery succeeded: its row is removed. */
  deliverySucceeded(id: number): MaybePromise<void>;
  /** A delivery failed: retried at `retryAtMs`, or dead when undefined. */
  deliveryFailed(id: number, retryAtMs: number | undefined, error: string): MaybePromise<void>;
  /** One entry per push config of the task, in list order: its outbox and delivery record. */
  pushDeliveryState?(scope: StoreScope, taskId: string): MaybePromise<PushDeliveryState[]>;
  /** Called after a transaction added deliveries to the outbox. */
  onOutbox?: () => void;

  /**
   * Opens a batch: the writes until commitBatch() become one transaction.
   * Lets a burst of events (an agent publishing several in one tick) cost
   * one commit instead of one each; reads inside the batch see its writes.
   */
  beginBatch(): void;
  /** Resolves (or returns) once the unit is durable; rejects (or throws) when it was not stored. At most one commit is in flight: beginBatch() may open the next unit meanwhile. */
  commitBatch(): MaybePromise<void>;
  rollbackBatch(): void;

  close(): MaybePromise<void>;

  /** Outbox rows not yet delivered nor dead, and the earliest due time among those due by nowMs (for metrics). */
  outboxStats?(nowMs: number): MaybePromise<OutboxStats>;
  /** What replicas on the same database share; absent for a store only one process uses (SQLite). */
  readonly fleet?: Fleet;

  /** A networked store's connection pool now: open, idle, and callers waiting for a connection (metrics). */
  poolStats?(): { readonly total: number; readonly idle: number; readonly waiting: number };

  /** Throws when the store cannot answer a query now (readiness). */
  ping?(): MaybePromise<void>;

  /** Deleting tasks that have outlived their retention (lifecycle/retention-sweep.ts). */
  readonly retention?: TaskRetention;
}

/** The delivery record of one push config. */
export interface PushDeliveryState {
  readonly configId: string;
  readonly url: string;
  /** Deliveries owed and not yet given up. */
  readonly pending: number;
  /** Deliveries given up after their last attempt. */
  readonly dead: number;
  /** Deliveries the webhook accepted (2xx). */
  readonly delivered: number;
  readonly lastAttemptMs?: number;
  /** The error of the most recent failed attempt, if any failed. */
  readonly lastError?: string;
  /** When the next pending delivery falls due. */
  readonly nextAttemptMs?: number;
}

/** What the push outbox holds now. */
export interface OutboxStats {
  readonly pending: number;
  /** Earliest next-attempt time (ms) of the rows already due, if any. */
  readonly oldestDueMs?: number;
}
