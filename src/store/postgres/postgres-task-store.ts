import type pg from "pg";
import { MessageSchema, StreamResponseSchema, TaskPushNotificationConfigSchema, TaskState, type Message, type StreamResponse, type Task, type TaskPushNotificationConfig, type TaskStatus } from "../../../gen/a2a/v1/a2a_pb.js";
import { decode, taskWire } from "../encoding/index.js";
import type { ArtifactChange, LoggedEvent, NewTask, OutboxStats, PushDelivery, PushDeliveryState, SendKey, SentMessage, StoreScope, TaskHead, TaskPage, TaskQuery, TaskStore, TaskView } from "../task-store.js";
import { openPostgres } from "./connection.js";
import type { OrphanTask } from "../fleet.js";
import { PgFleet } from "./fleet/index.js";
import type { PostgresTaskStoreOptions } from "./store-options.js";
import { PendingUnit } from "./pending-unit.js";
import { statementName } from "./statement-names.js";
import { DEFAULT_POOL_SIZE } from "./pool.js";
import { PostgresPushOutbox } from "./push-outbox.js";
import { StoreUnavailableError } from "../store-unavailable.js";
import { conflictRolledBack, StoreFenceError, storeError } from "./driver-errors.js";
import { TaskCache, type CachedTask } from "./task-cache.js";
import { PostgresRetention } from "./postgres-retention.js";
import { FirstStatistics } from "./first-statistics.js";
import { listStatement, pageOf } from "./task-list.js";
import { headOf, historyLimit, seenOf, taskOf, taskPieces, type HeadRow, type LoadedRow } from "./task-loader.js";
import { COUNT_CONFIGS, DELETE_CONFIG, EVENTS_AFTER, FIND_SENT, GET_CONFIG, HEAD_BY_KEY, IN_FLIGHT, LIST_CONFIGS, SWEEP, TASK_BY_KEY } from "./task-statements.js";
import { UNIT_SQL } from "./unit-statement.js";

/** How long a replica holds the deliveries it took: the push worker's POST timeout (10 s) and a margin. */
const OUTBOX_CLAIM_MS = 30_000;
/** Times a unit is sent when the server keeps rolling it back to break a conflict (a deadlock between replicas); orphans claimed per sweep. */
const UNIT_ATTEMPTS = 3;
const SWEEP_BATCH = 500;

/**
 * The TaskStore on PostgreSQL (node-postgres and its pool), behaving as
 * SqliteTaskStore does. Writes go into the open unit and return at once:
 * a seq is predicted from what the store has seen of the task (TaskCache)
 * and the database fences on it. commitBatch sends the whole unit as one
 * prepared statement (unit-statement.ts: one round trip, one transaction);
 * at most one commit is in flight while the next unit fills. Reads are one
 * statement each; reads of a task refresh the cache, which answers the
 * head of a task it saw terminal, and once the whole of one a unit ended.
 */
export class PostgresTaskStore implements TaskStore {
  private readonly cache: TaskCache;
  private readonly outbox: PostgresPushOutbox;
  private readonly maxHistory: number | null;
  private open: PendingUnit | undefined;
  /** Settles when the last commit sent has settled (never rejects): the next one waits for it. */
  private tail: Promise<void> = Promise.resolve();
  private closed: Promise<void> | undefined;

  onOutbox?: () => void;

  /** The fleet this store's hub belongs to (any number of hubs may share the database). */
  readonly fleet: PgFleet | undefined;
  /** This replica's id in `tasks.owner` and in its wake-ups (a store without a fleet writes none). */
  private readonly replica: string | null;

  readonly retention: PostgresRetention;
  private readonly statistics: FirstStatistics;

  /** Opens the pool, brings the schema up to date, joins the fleet and returns the store on it. */
  static async open(options: PostgresTaskStoreOptions): Promise<PostgresTaskStore> {
    let db;
    try {
      db = await openPostgres(options);
    } catch (e) {
      // A server that is not there at start says so, as it would later.
      throw storeError(e, "opening the store");
    }
    const listen = options.fleet === false ? undefined : { connectionString: options.url, keepAlive: true, application_name: options.applicationName ?? "a2a-hub" };
    const store = new PostgresTaskStore(db.pool, options, listen);
    try {
      await store.fleet?.start();
    } catch (e) {
      await db.pool.end().catch(() => undefined);
      throw storeError(e, "joining the fleet");
    }
    return store;
  }

  /** `listen`: how to open the fleet's listening connection; without it the store serves one hub and joins no fleet. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly options: Omit<PostgresTaskStoreOptions, "url"> = {},
    listen?: pg.ClientConfig,
  ) {
    this.fleet = listen && new PgFleet(pool, listen, (replica) => this.sweepOrphans(replica), options.fleet || undefined);
    this.replica = this.fleet?.replica ?? null;
    this.cache = new TaskCache(options.cacheSize);
    this.outbox = new PostgresPushOutbox(
      (what, text, values) => this.query(what, text, values),
      this.fleet && { replica: this.fleet.replica, claimMs: OUTBOX_CLAIM_MS },
    );
    this.retention = new PostgresRetention((what, text, values) => this.query(what, text, values), this.cache);
    this.statistics = new FirstStatistics((what, text, values) => this.query(what, text, values));
    this.maxHistory = options.maxHistoryMessages === undefined || options.maxHistoryMessages === Number.POSITIVE_INFINITY ? null : options.maxHistoryMessages;
  }

  /** Runs one statement; a database that cannot be reached is a StoreUnavailableError. */
  private async query<R>(what: string, text: string, values: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query({ name: statementName(text), text, values })).rows as R[];
    } catch (e) {
      throw storeError(e, what);
    }
  }

  // ---- units of work ----

  beginBatch(): void {
    this.open ??= new PendingUnit();
    // Its commit is the caller's now, whoever opened it: the caller must hear how it went.
    this.open.ownCommit = false;
  }

  /** The open unit; a write outside any opens one that commits on its own right after this turn. */
  private unit(): PendingUnit {
    if (this.open) return this.open;
    const unit = new PendingUnit();
    unit.ownCommit = true;
    this.open = unit;
    setImmediate(() => {
      if (this.open === unit && unit.ownCommit) this.commitBatch().catch((e: Error) => this.options.onBackgroundError?.(e));
    });
    return unit;
  }

  commitBatch(): Promise<void> {
    const unit = this.open;
    this.open = undefined;
    const previous = this.tail;
    if (!unit || unit.empty) return previous;
    const done = (async () => {
      // At most one commit in flight: a unit's seqs follow the previous unit's.
      await previous;
      let pushed: boolean;
      try {
        pushed = await this.applyUnit(unit);
      } catch (e) {
        const error = this.unitError(e, unit);
        this.cache.release(unit.touched, true);
        throw error;
      }
      this.cache.release(unit.touched, false, unit.settledTasks(this.maxHistory));
      if (pushed) this.onOutbox?.();
    })();
    this.tail = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  /** Sends the unit, again when the server rolled it back to break a conflict with another replica's. */
  private async applyUnit(unit: PendingUnit): Promise<boolean> {
    const values = unit.values(Date.now(), this.maxHistory, this.replica);
    for (let attempt = 1; ; attempt++) {
      try {
        const rows = (await this.pool.query<{ pushed: boolean }>({ name: statementName(UNIT_SQL), text: UNIT_SQL, values })).rows;
        return rows[0]?.pushed === true;
      } catch (e) {
        if (attempt >= UNIT_ATTEMPTS || !conflictRolledBack(e)) throw e;
      }
    }
  }

  /**
   * What the callers of a failed unit are told. A fence fails when a task
   * was written on what this replica no longer holds: an earlier unit with
   * writes to it failed (outcome unknown, the database down), or another
   * replica's sweep failed it after this one's lease ran out (the database
   * unreachable, or this replica stalled, for longer than the lease). Either
   * follows from losing the database or the lease, not from a conflict a
   * client made: the same calls may succeed now, so it is UNAVAILABLE.
   */
  private unitError(e: unknown, unit: PendingUnit): Error {
    const error = storeError(e, "a unit of work");
    if (!(error instanceof StoreFenceError)) return error;
    const why = [...unit.touched].some((t) => this.cache.forgotten(t))
      ? "an earlier unit of work this one builds on was not stored"
      : "one of its tasks was written by another replica since this one last read it (as when this one's lease ran out while the database was unreachable)";
    return new StoreUnavailableError(`the task store refused a unit of work: ${why}: ${error.message}`, { cause: error });
  }

  rollbackBatch(): void {
    const unit = this.open;
    this.open = undefined;
    // Its predictions moved the cache: those tasks are read again.
    if (unit) this.cache.release(unit.touched, true);
  }

  // ---- writes ----

  createTask(scope: StoreScope, task: NewTask, event: StreamResponse): number {
    const unit = this.unit();
    unit.create(scope, task, event);
    unit.touch(this.cache.created(scope, task.id, task.contextId, task.status.state));
    this.statistics.taskCreated();
    return 1;
  }

  /** The cached task a write goes to, held by the unit. */
  private writing(unit: PendingUnit, scope: StoreScope, taskId: string): CachedTask {
    const entry = this.cache.forWrite(scope, taskId);
    unit.touch(entry);
    return entry;
  }

  appendHistory(scope: StoreScope, taskId: string, message: Message): void {
    const unit = this.unit();
    this.writing(unit, scope, taskId);
    unit.history(scope, taskId, message);
  }

  /** Logs the task's next event in the open unit, at the seq predicted from the cache (the database fences on it). */
  private logEvent(scope: StoreScope, taskId: string, put: (unit: PendingUnit, seq: number) => void): CachedTask {
    const unit = this.unit();
    const entry = this.writing(unit, scope, taskId);
    put(unit, entry.lastSeq + 1);
    entry.lastSeq += 1;
    return entry;
  }

  setStatus(scope: StoreScope, taskId: string, status: TaskStatus, event: StreamResponse): number {
    const entry = this.logEvent(scope, taskId, (unit, seq) => unit.status(scope, taskId, seq, status, event));
    entry.state = status.state;
    return entry.lastSeq;
  }

  changeArtifact(scope: StoreScope, taskId: string, change: ArtifactChange, event: StreamResponse): number {
    const entry = this.logEvent(scope, taskId, (unit, seq) => unit.artifact(scope, taskId, seq, change, event));
    const id = change.artifact.artifactId;
    const was = entry.sealed.get(id);
    // §4.2.2: a replacement is sealed as it says; an append seals, never unseals.
    entry.sealed.set(id, !change.append || was === undefined ? change.lastChunk : was || change.lastChunk);
    return entry.lastSeq;
  }

  artifactSealed(scope: StoreScope, taskId: string, artifactId: string): boolean | undefined {
    return this.cache.forWrite(scope, taskId).sealed.get(artifactId);
  }

  rememberSent(scope: StoreScope, sent: SentMessage): void {
    this.unit().sent(scope, sent);
  }

  putPushConfig(scope: StoreScope, config: TaskPushNotificationConfig, version = "1.0"): void {
    const unit = this.unit();
    this.writing(unit, scope, config.taskId);
    unit.pushConfig(scope, config, version);
  }

  // ---- reads ----

  /** Reads one task row (with what `sql` gathers) and tells the cache what it found. */
  private async readTask(what: string, scope: StoreScope, taskId: string, sql: string, extra: unknown[] = []): Promise<LoadedRow | undefined> {
    const [row] = await this.query<LoadedRow>(what, sql, [scope.tenant, scope.agentId, taskId, ...extra]);
    // A task found gone (deleted by retention on any replica) leaves the cache too.
    if (row) this.cache.seen(scope, taskId, seenOf(row));
    else this.cache.dropped(scope, taskId);
    return row;
  }

  async getHead(scope: StoreScope, taskId: string): Promise<TaskHead | undefined> {
    const known = this.cache.terminalHead(scope, taskId);
    if (known) return known;
    const row = (await this.readTask("a task's head", scope, taskId, HEAD_BY_KEY, [this.replica])) as HeadRow | undefined;
    return row && headOf(row);
  }

  private async load(scope: StoreScope, taskId: string, view: TaskView = {}): Promise<LoadedRow | undefined> {
    return this.readTask("a task", scope, taskId, TASK_BY_KEY(view.includeArtifacts !== false), [historyLimit(view)]);
  }

  async getTask(scope: StoreScope, taskId: string, view?: TaskView): Promise<Task | undefined> {
    const row = await this.load(scope, taskId, view);
    return row && taskOf(row);
  }

  async getTaskWire(scope: StoreScope, taskId: string, view: TaskView = {}): Promise<Uint8Array | undefined> {
    const whole = this.cache.wholeTask(scope, taskId, view);
    if (whole) return taskWire(whole);
    const row = await this.load(scope, taskId, view);
    return row && taskWire(taskPieces(row));
  }

  async snapshot(scope: StoreScope, taskId: string, view?: TaskView): Promise<{ task: Task; seq: number } | undefined> {
    // One statement: the task and the seq it reflects come from one snapshot.
    const row = await this.load(scope, taskId, view);
    return row && { task: taskOf(row), seq: row.last_seq };
  }

  async eventsAfter(scope: StoreScope, taskId: string, afterSeq: number, limit?: number): Promise<LoggedEvent[]> {
    const rows = await this.query<{ seq: number; event: Buffer }>("a task's events", EVENTS_AFTER, [scope.tenant, scope.agentId, taskId, afterSeq, limit ?? null]);
    return rows.map((e) => ({ seq: e.seq, event: decode(StreamResponseSchema, e.event) }));
  }

  async listTasks(scope: StoreScope, q: TaskQuery): Promise<TaskPage> {
    const { text, values } = listStatement(scope, q);
    return pageOf(await this.query("ListTasks", text, values), q);
  }

  async findSent(scope: StoreScope, key: SendKey): Promise<SentMessage | undefined> {
    const [r] = await this.query<{ fingerprint: Buffer; task_id: string | null; reply: Buffer | null }>("the send ledger", FIND_SENT[key.by], [scope.tenant, scope.agentId, key.value]);
    if (!r) return undefined;
    return { key, fingerprint: r.fingerprint, taskId: r.task_id ?? undefined, reply: r.reply ? decode(MessageSchema, r.reply) : undefined };
  }

  async inFlight(): Promise<Array<{ scope: StoreScope; taskId: string; contextId: string }>> {
    // In a fleet, tasks in flight may be running on other replicas: only orphans are this start's to fail.
    if (this.replica !== null) return this.sweepOrphans(this.replica);
    const rows = await this.query<LoadedRow>("tasks in flight", IN_FLIGHT, []);
    return rows.map((r) => {
      const scope = { tenant: r.tenant, agentId: r.agent };
      // Core fails them next: the store must have seen them (its rule for writes).
      this.cache.seen(scope, r.id, seenOf(r));
      return { scope, taskId: r.id, contextId: r.context_id };
    });
  }

  /** Claims orphans for `replica` and loads them, so that core may fail them. */
  private async sweepOrphans(replica: string): Promise<OrphanTask[]> {
    const rows = await this.query<LoadedRow>("orphaned tasks", SWEEP, [replica, SWEEP_BATCH]);
    return rows.map((r) => {
      const scope = { tenant: r.tenant, agentId: r.agent };
      this.cache.seen(scope, r.id, seenOf(r));
      return { scope, taskId: r.id, contextId: r.context_id };
    });
  }

  async getPushConfig(scope: StoreScope, taskId: string, id: string): Promise<TaskPushNotificationConfig | undefined> {
    const [c] = await this.query<{ config: Buffer }>("a push config", GET_CONFIG, [scope.tenant, scope.agentId, taskId, id]);
    return c && decode(TaskPushNotificationConfigSchema, c.config);
  }

  async listPushConfigs(scope: StoreScope, taskId: string): Promise<TaskPushNotificationConfig[]> {
    const rows = await this.query<{ config: Buffer }>("push configs", LIST_CONFIGS, [scope.tenant, scope.agentId, taskId]);
    return rows.map((c) => decode(TaskPushNotificationConfigSchema, c.config));
  }

  async countPushConfigs(scope: StoreScope, taskId: string): Promise<number> {
    const [r] = await this.query<{ n: number }>("push configs", COUNT_CONFIGS, [scope.tenant, scope.agentId, taskId]);
    return r?.n ?? 0;
  }

  async deletePushConfig(scope: StoreScope, taskId: string, id: string): Promise<boolean> {
    return (await this.query("a push config", DELETE_CONFIG, [scope.tenant, scope.agentId, taskId, id])).length > 0;
  }

  // ---- the push outbox ----

  dueDeliveries(nowMs: number, limit: number): Promise<PushDelivery[]> {
    return this.outbox.due(nowMs, limit);
  }

  nextDeliveryAt(): Promise<number | undefined> {
    return this.outbox.nextDueAt();
  }

  deliverySucceeded(id: number): Promise<void> {
    return this.outbox.succeeded(id, Date.now());
  }

  deliveryFailed(id: number, retryAtMs: number | undefined, error: string): Promise<void> {
    return this.outbox.failed(id, retryAtMs, error, Date.now());
  }

  pushDeliveryState(scope: StoreScope, taskId: string): Promise<PushDeliveryState[]> {
    return this.outbox.deliveryState(scope, taskId);
  }

  outboxStats(nowMs: number): Promise<OutboxStats> {
    return this.outbox.stats(nowMs);
  }

  /**
   * Calls wait for the pool only once every connection it may open is open:
   * before that, a call queued is one a connection is being opened for (as
   * the scrape's own outbox query is on an idle replica whose connections
   * timed out), which waits for the server, not for the pool.
   */
  poolStats(): { total: number; idle: number; waiting: number } {
    const full = this.pool.totalCount >= (this.options.poolSize ?? DEFAULT_POOL_SIZE);
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: full ? this.pool.waitingCount : 0 };
  }

  async ping(): Promise<void> {
    await this.query("a ping", "SELECT 1", []);
  }

  /** Waits for the commit in flight, then closes the pool; writes of a unit never committed are dropped. */
  close(): Promise<void> {
    return (this.closed ??= (async () => {
      this.open = undefined;
      await this.tail;
      await this.fleet?.stop();
      await this.pool.end();
    })());
  }
}
