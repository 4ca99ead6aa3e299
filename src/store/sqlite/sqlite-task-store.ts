import type Database from "better-sqlite3";
import { create, toBinary } from "@bufbuild/protobuf";
import {
  TaskSchema,
  TaskStatusSchema,
  type Message,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
  type TaskState,
  type TaskStatus,
} from "../../../gen/a2a/v1/a2a_pb.js";
import type {
  ArtifactChange,
  LoggedEvent,
  NewTask,
  OutboxStats,
  PushDelivery,
  PushDeliveryState,
  SendKey,
  SentMessage,
  StoreScope,
  TaskHead,
  TaskPage,
  TaskQuery,
  TaskStore,
  TaskView,
} from "../task-store.js";
import { TaskArtifacts } from "./artifacts.js";
import { openDatabase, type ConnectionOptions } from "./connection.js";
import { EventLog } from "./event-log.js";
import { TaskHistory } from "./history.js";
import { PushConfigs } from "./push-configs.js";
import { PushDeliveryLog } from "./push-delivery-log.js";
import { PushOutbox } from "./push-outbox.js";
import { decode, decodeMetadata, encodeMetadata, statusMs } from "./row-codecs.js";
import { SendLedger } from "./send-ledger.js";
import { TaskList } from "./task-list.js";
import { TaskRows, type TaskRow } from "./task-rows.js";

/** Options of the SQLite store. */
export interface SqliteStoreOptions extends ConnectionOptions {
  /** Messages kept in a task's history; older ones are dropped as new ones arrive. Default: all. */
  readonly maxHistoryMessages?: number;
}

/**
 * The default TaskStore: better-sqlite3 in WAL mode, composed of one part
 * per table family. Statements are prepared once; every write is one
 * transaction (a savepoint inside an open batch); an event, a message or
 * an artifact chunk is one new row plus one counter update on the task,
 * never a rewrite of the task.
 */
export class SqliteTaskStore implements TaskStore {
  private readonly db: Database.Database;
  private readonly rows: TaskRows;
  private readonly history: TaskHistory;
  private readonly artifacts: TaskArtifacts;
  private readonly events: EventLog;
  private readonly ledger: SendLedger;
  private readonly pushConfigs: PushConfigs;
  private readonly outbox: PushOutbox;
  private readonly deliveryLog: PushDeliveryLog;
  private readonly list: TaskList;
  /** Prepared on first use: only a hub that serves readiness asks. */
  private pingStmt: Database.Statement<[], unknown> | undefined;
  /** The write order of status changes, continued from the stored maximum (one writer). */
  private touchCounter: number;
  /** better-sqlite3 transaction functions are meant to be made once: this one runs any body. */
  private readonly tx: Database.Transaction<(body: () => unknown) => unknown>;
  /** (tenant, agent, id) → rowid: rows are never deleted, so an entry never goes stale. */
  private readonly pks = new Map<string, number>();

  onOutbox?: () => void;

  constructor(options: SqliteStoreOptions) {
    this.db = openDatabase(options);
    this.rows = new TaskRows(this.db);
    this.history = new TaskHistory(this.db, options.maxHistoryMessages ?? Number.POSITIVE_INFINITY);
    this.artifacts = new TaskArtifacts(this.db);
    this.events = new EventLog(this.db);
    this.ledger = new SendLedger(this.db);
    this.pushConfigs = new PushConfigs(this.db);
    this.outbox = new PushOutbox(this.db, {
      eventAt: (pk, seq) => this.events.at(pk, seq),
      taskAt: (pk) => {
        const r = this.rows.byPk(pk);
        return r && this.load(r);
      },
    });
    this.deliveryLog = new PushDeliveryLog(this.db);
    this.tx = this.db.transaction((body: () => unknown) => body());
    this.list = new TaskList(this.db, {
      load: (row, view) => this.load(row, view),
      read: <T>(body: () => T) => this.tx.deferred(body) as T,
    });
    this.touchCounter = this.rows.maxTouch();
  }

  /** The rowid of a task that must exist (writes only follow a successful lookup). */
  private pkOf(scope: StoreScope, taskId: string): number {
    const key = `${scope.tenant}\u0000${scope.agentId}\u0000${taskId}`;
    let pk = this.pks.get(key);
    if (pk === undefined) {
      const r = this.rows.byKey(scope, taskId);
      if (!r) throw new Error(`store: task ${taskId} not found in scope ${scope.tenant}/${scope.agentId}`);
      pk = r.pk;
      if (this.pks.size >= 100_000) this.pks.clear();
      this.pks.set(key, pk);
    }
    return pk;
  }

  private logEvent(pk: number, seq: number, event: StreamResponse): void {
    this.events.append(pk, seq, event);
    // §3.5.3: one delivery per config, in the same transaction as the event.
    this.outbox.enqueue(pk, seq, event);
  }

  /** Runs a write transaction (a savepoint inside a batch) and announces queued deliveries once committed. */
  private write<T>(fn: () => T): T {
    const result = this.tx.immediate(fn) as T;
    if (!this.db.inTransaction) this.announcePush();
    return result;
  }

  private announcePush(): void {
    if (this.outbox.takeQueued()) this.onOutbox?.();
  }

  beginBatch(): void {
    if (!this.db.inTransaction) this.db.exec("BEGIN IMMEDIATE");
  }

  commitBatch(): void {
    if (this.db.inTransaction) this.db.exec("COMMIT");
    this.announcePush();
  }

  rollbackBatch(): void {
    if (this.db.inTransaction) this.db.exec("ROLLBACK");
    this.outbox.forgetQueued();
    // Rows created in the batch are gone, and their rowids may be handed out again.
    this.pks.clear();
  }

  private addHistory(pk: number, message: Message): void {
    this.history.add({ pk, idx: this.rows.nextHistoryIndex(pk), message });
  }

  createTask(scope: StoreScope, task: NewTask, event: StreamResponse): number {
    return this.write(() => {
      const pk = this.rows.insert({
        scope,
        id: task.id,
        contextId: task.contextId,
        state: task.status.state,
        status: toBinary(TaskStatusSchema, task.status),
        statusMs: statusMs(task.status),
        touch: ++this.touchCounter,
        metadata: encodeMetadata(task.metadata),
      });
      this.pks.set(`${scope.tenant}\u0000${scope.agentId}\u0000${task.id}`, pk);
      for (const m of task.history) this.addHistory(pk, m);
      const seq = this.rows.nextSeq(pk);
      this.logEvent(pk, seq, event);
      return seq;
    });
  }

  getHead(scope: StoreScope, taskId: string): TaskHead | undefined {
    const r = this.rows.byKey(scope, taskId);
    return r && { id: r.id, contextId: r.context_id, state: r.state as TaskState, lastSeq: r.last_seq };
  }

  private load(r: TaskRow, view: TaskView = {}): Task {
    const task = create(TaskSchema, {
      id: r.id,
      contextId: r.context_id,
      status: decode(TaskStatusSchema, r.status),
      metadata: decodeMetadata(r.metadata),
    });
    const history = this.history.read(r.pk, view.historyLength);
    if (history) task.history = history;
    if (view.includeArtifacts !== false) task.artifacts = this.artifacts.read(r.pk);
    return task;
  }

  getTask(scope: StoreScope, taskId: string, view?: TaskView): Task | undefined {
    const r = this.rows.byKey(scope, taskId);
    return r && this.load(r, view);
  }

  snapshot(scope: StoreScope, taskId: string, view?: TaskView): { task: Task; seq: number } | undefined {
    // better-sqlite3 reads are synchronous: nothing can write between these two reads.
    const r = this.rows.byKey(scope, taskId);
    return r && { task: this.load(r, view), seq: r.last_seq };
  }

  appendHistory(scope: StoreScope, taskId: string, message: Message): void {
    this.write(() => this.addHistory(this.pkOf(scope, taskId), message));
  }

  setStatus(scope: StoreScope, taskId: string, status: TaskStatus, event: StreamResponse): number {
    return this.write(() => {
      const pk = this.pkOf(scope, taskId);
      if (status.message) this.addHistory(pk, status.message);
      const seq = this.rows.setStatus({
        pk,
        state: status.state,
        status: toBinary(TaskStatusSchema, status),
        statusMs: statusMs(status),
        touch: ++this.touchCounter,
      });
      this.logEvent(pk, seq, event);
      return seq;
    });
  }

  artifactSealed(scope: StoreScope, taskId: string, artifactId: string): boolean | undefined {
    const r = this.rows.byKey(scope, taskId);
    return r && this.artifacts.sealed(r.pk, artifactId);
  }

  changeArtifact(scope: StoreScope, taskId: string, change: ArtifactChange, event: StreamResponse): number {
    return this.write(() => {
      const pk = this.pkOf(scope, taskId);
      this.artifacts.apply({ pk, change, nextOrd: () => this.rows.nextArtifactOrd(pk) });
      const seq = this.rows.nextSeq(pk);
      this.logEvent(pk, seq, event);
      return seq;
    });
  }

  eventsAfter(scope: StoreScope, taskId: string, afterSeq: number, limit?: number): LoggedEvent[] {
    const r = this.rows.byKey(scope, taskId);
    return r ? this.events.after(r.pk, afterSeq, limit) : [];
  }

  listTasks(scope: StoreScope, q: TaskQuery): TaskPage {
    return this.list.list(scope, q);
  }

  rememberSent(scope: StoreScope, sent: SentMessage): void {
    this.write(() => this.ledger.remember(scope, sent));
  }

  findSent(scope: StoreScope, key: SendKey): SentMessage | undefined {
    return this.ledger.find(scope, key);
  }

  inFlight(): Array<{ scope: StoreScope; taskId: string; contextId: string }> {
    return this.rows.inFlight().map((r) => ({
      scope: { tenant: r.tenant, agentId: r.agent },
      taskId: r.id,
      contextId: r.context_id,
    }));
  }

  putPushConfig(scope: StoreScope, config: TaskPushNotificationConfig, version = "1.0"): void {
    this.pushConfigs.put({ pk: this.pkOf(scope, config.taskId), config, version });
  }

  getPushConfig(scope: StoreScope, taskId: string, id: string): TaskPushNotificationConfig | undefined {
    const r = this.rows.byKey(scope, taskId);
    return r && this.pushConfigs.get(r.pk, id);
  }

  listPushConfigs(scope: StoreScope, taskId: string): TaskPushNotificationConfig[] {
    const r = this.rows.byKey(scope, taskId);
    return r ? this.pushConfigs.list(r.pk) : [];
  }

  countPushConfigs(scope: StoreScope, taskId: string): number {
    const r = this.rows.byKey(scope, taskId);
    return r ? this.pushConfigs.count(r.pk) : 0;
  }

  deletePushConfig(scope: StoreScope, taskId: string, id: string): boolean {
    const r = this.rows.byKey(scope, taskId);
    if (!r) return false;
    // Deleting a config stops its future deliveries and leaves no rows behind.
    return this.write(() => {
      this.outbox.dropConfig(r.pk, id);
      this.deliveryLog.dropConfig(r.pk, id);
      return this.pushConfigs.delete(r.pk, id);
    });
  }

  dueDeliveries(nowMs: number, limit: number): PushDelivery[] {
    return this.outbox.due(nowMs, limit);
  }

  nextDeliveryAt(): number | undefined {
    return this.outbox.nextDueAt();
  }

  deliverySucceeded(id: number): void {
    // The log counts the delivery in the transaction that deletes its outbox row.
    this.tx.immediate(() => {
      this.deliveryLog.succeeded(id, Date.now());
      this.outbox.succeeded(id);
    });
  }

  deliveryFailed(id: number, retryAtMs: number | undefined, error: string): void {
    this.tx.immediate(() => {
      this.deliveryLog.failed(id, Date.now(), error.slice(0, 1000));
      this.outbox.failed(id, retryAtMs, error);
    });
  }

  pushDeliveryState(scope: StoreScope, taskId: string): PushDeliveryState[] {
    const r = this.rows.byKey(scope, taskId);
    if (!r) return [];
    return this.tx.deferred((): PushDeliveryState[] => {
      const state = this.deliveryLog.read(r.pk);
      return this.pushConfigs.list(r.pk).map((c) => ({ pending: 0, dead: 0, delivered: 0, ...state.get(c.id), configId: c.id, url: c.url }));
    }) as PushDeliveryState[];
  }

  outboxStats(nowMs: number): OutboxStats {
    return this.outbox.stats(nowMs);
  }

  ping(): void {
    this.pingStmt ??= this.db.prepare("SELECT 1");
    this.pingStmt.get();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
