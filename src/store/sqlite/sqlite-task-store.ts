import type Database from "better-sqlite3";
import { toBinary } from "@bufbuild/protobuf";
import { MessageSchema, TaskSchema, type Message, type StreamResponse, type Task, type TaskPushNotificationConfig, type TaskStatus } from "../../../gen/a2a/v1/a2a_pb.js";
import type { ArtifactChange, LoggedEvent, NewTask, OutboxStats, PushDelivery, PushDeliveryState, SendKey, SentMessage, StoreScope, TaskHead, TaskPage, TaskQuery, TaskStore, TaskView } from "../task-store.js";
import { TaskArtifacts, type ArtifactHead } from "./artifacts.js";
import { openDatabase } from "./connection.js";
import type { SqliteStoreOptions } from "./store-options.js";
import { EventLog } from "./event-log.js";
import { artifactRows, creationRows, statusRows } from "../encoding/index.js";
import type { HeldChildren } from "./held-children.js";
import { TaskHistory } from "./history.js";
import { PushConfigs } from "./push-configs.js";
import { PushDeliveries } from "./push-deliveries.js";
import { PushDeliveryLog } from "./push-delivery-log.js";
import { PushOutbox } from "./push-outbox.js";
import { decode, encodeMetadata, statusMs, taskWire } from "../encoding/index.js";
import { SendLedger } from "./send-ledger.js";
import { TaskList } from "./task-list.js";
import { TaskCounts } from "./task-counts.js";
import { RECORD_LIMITS, TaskRecords, type TaskRecord } from "./task-records.js";
import { sourceOf, TaskRows, type TaskSource } from "./task-rows.js";
import { SqliteRetention } from "./sqlite-retention.js";

/**
 * The default TaskStore: better-sqlite3 in WAL mode, composed of one part
 * per table family. Statements are prepared once; every write is one
 * transaction (a savepoint inside an open batch); an event, a message or
 * an artifact chunk is one new row, and the task row it changes is written
 * once per transaction whatever number of changes it took (task-records.ts).
 */
export class SqliteTaskStore implements TaskStore {
  private readonly db: Database.Database;
  private readonly rows: TaskRows;
  private readonly records: TaskRecords;
  private readonly history: TaskHistory;
  private readonly artifacts: TaskArtifacts;
  private readonly events: EventLog;
  private readonly ledger: SendLedger;
  private readonly pushConfigs: PushConfigs;
  private readonly outbox: PushOutbox;
  private readonly deliveryLog: PushDeliveryLog;
  private readonly deliveries: PushDeliveries;
  private readonly list: TaskList;
  /** Prepared on first use: only a hub that serves readiness asks. */
  private pingStmt: Database.Statement<[], unknown> | undefined;
  /** The write order of status changes, continued from the stored maximum (one writer). */
  private touchCounter: number;
  /** better-sqlite3 transaction functions are meant to be made once: this one runs any body. */
  private readonly tx: Database.Transaction<(body: () => unknown) => unknown>;
  /** A unit of work's BEGIN, COMMIT and ROLLBACK, prepared once: exec() parsed and prepared them on every unit. */
  private readonly unit: { readonly begin: Database.Statement; readonly commit: Database.Statement; readonly rollback: Database.Statement };

  onOutbox?: () => void;

  readonly retention: SqliteRetention;

  constructor(options: SqliteStoreOptions) {
    this.db = openDatabase(options);
    this.rows = new TaskRows(this.db);
    const maxHistoryMessages = options.maxHistoryMessages ?? Number.POSITIVE_INFINITY;
    this.records = new TaskRecords(this.rows, new TaskCounts(this.db), { ...RECORD_LIMITS, maxHistoryMessages });
    this.history = new TaskHistory(this.db, maxHistoryMessages);
    this.artifacts = new TaskArtifacts(this.db);
    this.events = new EventLog(this.db);
    this.ledger = new SendLedger(this.db);
    this.pushConfigs = new PushConfigs(this.db);
    this.outbox = new PushOutbox(this.db, {
      eventAt: (pk, seq) => this.events.at(pk, seq),
      taskAt: (pk) => {
        const r = this.rows.byPk(pk);
        return r && this.load(sourceOf(r));
      },
    });
    this.deliveryLog = new PushDeliveryLog(this.db);
    this.tx = this.db.transaction((body: () => unknown) => body());
    this.deliveries = new PushDeliveries({ tx: this.tx, outbox: this.outbox, log: this.deliveryLog, configs: this.pushConfigs, rows: this.rows, flush: () => this.records.flush() });
    this.unit = { begin: this.db.prepare("BEGIN IMMEDIATE"), commit: this.db.prepare("COMMIT"), rollback: this.db.prepare("ROLLBACK") };
    this.list = new TaskList(this.db, {
      load: (row, view) => this.load(sourceOf(row), view),
      read: <T>(body: () => T) => {
        this.flushRows();
        return this.tx.deferred(body) as T;
      },
    });
    this.touchCounter = this.rows.maxTouch();
    this.retention = new SqliteRetention(this.db, {
      filename: options.filename,
      busy: () => this.records.writing,
      dropped: (scope, taskId) => this.records.dropped(scope, taskId),
    });
  }

  /**
   * Logs the task's next event; returns its seq (the record takes it once
   * the whole write succeeded). Call it last in a write: the event is held
   * until the transaction ends (event-log.ts), so no statement may fail
   * after it.
   */
  private logEvent(r: TaskRecord, event: StreamResponse, bytes: Uint8Array): number {
    const seq = r.lastSeq + 1;
    this.owePush(r, seq, event);
    this.events.append(r.pk, seq, bytes);
    return seq;
  }

  /** §3.5.3: one delivery per config, in the same transaction as the event (a statement, when the task has configs). */
  private owePush(r: TaskRecord, seq: number, event: StreamResponse): void {
    if (r.mayPush) this.outbox.enqueue(r.pk, seq, event);
  }

  /**
   * Runs a write transaction and announces queued deliveries once committed.
   * Inside a batch it is a savepoint and the task rows it changed are
   * written at commitBatch; alone, it writes them before it commits. A
   * write of `oneStatement` needs no savepoint in a batch: SQLite undoes a
   * failed statement's changes and keeps the transaction open, which is
   * all a savepoint would do for it (and the record changes only after it).
   */
  private write<T>(fn: () => T, oneStatement = false): T {
    if (this.db.inTransaction) return oneStatement ? fn() : (this.tx.immediate(fn) as T);
    let result: T;
    try {
      result = this.tx.immediate(() => {
        const r = fn();
        this.flushRows();
        return r;
      }) as T;
    } catch (e) {
      // Rolled back: records it changed, and deliveries it queued, are not stored.
      this.forgetRows();
      this.outbox.forgetQueued();
      throw e;
    }
    this.announcePush();
    return result;
  }

  private announcePush(): void {
    if (this.outbox.takeQueued()) this.onOutbox?.();
  }

  beginBatch(): void {
    if (!this.db.inTransaction) this.unit.begin.run();
  }

  commitBatch(): void {
    if (this.db.inTransaction) {
      this.flushRows();
      this.unit.commit.run();
    }
    this.announcePush();
  }

  rollbackBatch(): void {
    if (this.db.inTransaction) this.unit.rollback.run();
    this.outbox.forgetQueued();
    this.forgetRows();
  }

  /** Writes what is held in memory ahead of the tables: task rows and artifact heads, each once per transaction. */
  private flushRows(): void {
    this.records.flush();
    this.artifacts.flush();
    this.events.flush();
  }

  private forgetRows(): void {
    this.records.forget();
    this.artifacts.forget();
    this.events.forget();
  }

  createTask(scope: StoreScope, task: NewTask, event: StreamResponse): number {
    // A statement per history message; the event and the row are held (event-log.ts, task-records.ts).
    return this.write(() => {
      const pk = this.records.newPk();
      const rows = creationRows(event, task.status, task.history);
      rows.history.forEach((message, idx) => this.history.add({ pk, idx, message }));
      // The creation event is the first of the log (seq 1). No push config
      // can hang off a task created just now: it owes no webhook.
      this.events.append(pk, 1, rows.event);
      this.records.created({
        pk,
        tenant: scope.tenant,
        agent: scope.agentId,
        id: task.id,
        contextId: task.contextId,
        metadata: encodeMetadata(task.metadata),
        createdMs: Date.now(),
        state: task.status.state,
        status: rows.status,
        statusMs: statusMs(task.status),
        touch: ++this.touchCounter,
        lastSeq: 1,
        historyCount: task.history.length,
        artifactCount: 0,
        mayPush: false,
      }, rows.history);
      return 1;
    }, task.history.length <= 1);
  }

  getHead(scope: StoreScope, taskId: string): TaskHead | undefined {
    const r = this.records.find(scope, taskId);
    return r && { id: r.id, contextId: r.contextId, state: r.state, lastSeq: r.lastSeq };
  }

  /** A Task from its row (or record) and its children: held ones when the record has them, else read from their tables. */
  private load(r: TaskSource & { held?: HeldChildren }, view: TaskView = {}): Task {
    return decode(TaskSchema, this.wire(r, view));
  }

  /** The Task in protobuf binary, put together from the bytes its row and children hold (encoding/task-wire.ts). */
  private wire(r: TaskSource & { held?: HeldChildren }, view: TaskView): Uint8Array {
    // The row's counters say when a child table has nothing to give.
    const history = r.historyCount === 0 ? undefined : r.held ? r.held.readHistory(view.historyLength) : this.history.read(r.pk, view.historyLength);
    const artifacts = view.includeArtifacts === false || r.artifactCount === 0 ? undefined : r.held ? r.held.readArtifacts() : this.artifacts.read(r.pk);
    return taskWire({ id: r.id, contextId: r.contextId, status: r.status, artifacts, history, metadata: r.metadata });
  }

  getTask(scope: StoreScope, taskId: string, view?: TaskView): Task | undefined {
    const r = this.records.find(scope, taskId);
    return r && this.load(r, view);
  }

  getTaskWire(scope: StoreScope, taskId: string, view: TaskView = {}): Uint8Array | undefined {
    const r = this.records.find(scope, taskId);
    return r && this.wire(r, view);
  }

  snapshot(scope: StoreScope, taskId: string, view?: TaskView): { task: Task; seq: number } | undefined {
    // better-sqlite3 reads are synchronous: nothing can write between the record and the child tables.
    const r = this.records.find(scope, taskId);
    return r && { task: this.load(r, view), seq: r.lastSeq };
  }

  /** Stores an encoded message at the end of the history; returns the new history count (the record takes it). */
  private addHistory(r: TaskRecord, message: Uint8Array): number {
    this.history.add({ pk: r.pk, idx: r.historyCount, message });
    return r.historyCount + 1;
  }

  appendHistory(scope: StoreScope, taskId: string, message: Message): void {
    this.write(() => {
      const r = this.records.get(scope, taskId);
      const bytes = toBinary(MessageSchema, message);
      this.records.apply(r, { historyCount: this.addHistory(r, bytes), message: bytes });
    });
  }

  setStatus(scope: StoreScope, taskId: string, status: TaskStatus, event: StreamResponse): number {
    const r = this.records.get(scope, taskId);
    const rows = statusRows(event, status);
    // The event is held, not written: a statement for a message joining the history, one for a webhook owed.
    const oneStatement = !(rows.message && r.mayPush);
    return this.write(() => {
      const historyCount = rows.message ? this.addHistory(r, rows.message) : r.historyCount;
      const lastSeq = this.logEvent(r, event, rows.event);
      const values = { state: status.state, bytes: rows.status, statusMs: statusMs(status), touch: ++this.touchCounter };
      this.records.apply(r, { status: values, lastSeq, historyCount, message: rows.message });
      return lastSeq;
    }, oneStatement);
  }

  /** The heads of a task's artifacts, read once and then kept with its record (artifacts.ts). */
  private headsOf(r: TaskRecord): Map<string, ArtifactHead> {
    if (!r.heads) {
      // The row's artifact count says when there is nothing to read.
      const heads = r.artifactCount === 0 ? new Map<string, ArtifactHead>() : this.artifacts.heads(r.pk);
      this.records.resize(r, () => (r.heads = heads));
      return heads;
    }
    return r.heads;
  }

  artifactSealed(scope: StoreScope, taskId: string, artifactId: string): boolean | undefined {
    const r = this.records.find(scope, taskId);
    return r && this.headsOf(r).get(artifactId)?.sealed;
  }

  changeArtifact(scope: StoreScope, taskId: string, change: ArtifactChange, event: StreamResponse): number {
    const r = this.records.get(scope, taskId);
    const heads = this.headsOf(r);
    const id = change.artifact.artifactId;
    const before = heads.get(id);
    // Parts and the event are held, not written: an append of a task that owes no webhook runs no statement at all.
    const oneStatement = TaskArtifacts.statements(change, before) + (r.mayPush ? 1 : 0) <= 1;
    return this.write(() => {
      const rows = artifactRows(event, change.artifact);
      // logEvent in two: the parts are held between the webhook row and the event, after every statement.
      const lastSeq = r.lastSeq + 1;
      this.owePush(r, lastSeq, event);
      const head = this.artifacts.apply({ pk: r.pk, change, ord: r.artifactCount + 1, head: rows.head, parts: rows.parts, before });
      this.events.append(r.pk, lastSeq, rows.event);
      // Every statement of the write succeeded: now the record and the heads may move.
      // A new head counts against the records' bound; a moved one keeps its size.
      if (before) heads.set(id, head);
      else this.records.resize(r, () => heads.set(id, head));
      if (before && change.append) this.artifacts.grew(r.pk, id, head);
      const artifact = { change, head: rows.head, parts: rows.parts };
      this.records.apply(r, { lastSeq, artifactCount: before ? r.artifactCount : r.artifactCount + 1, artifact });
      return lastSeq;
    }, oneStatement);
  }

  eventsAfter(scope: StoreScope, taskId: string, afterSeq: number, limit?: number): LoggedEvent[] {
    const r = this.records.find(scope, taskId);
    return r ? this.events.after(r.pk, afterSeq, limit) : [];
  }

  listTasks(scope: StoreScope, q: TaskQuery): TaskPage {
    return this.list.list(scope, q);
  }

  rememberSent(scope: StoreScope, sent: SentMessage): void {
    this.write(() => this.ledger.remember(scope, sent), true);
  }

  findSent(scope: StoreScope, key: SendKey): SentMessage | undefined {
    return this.ledger.find(scope, key);
  }

  inFlight(): Array<{ scope: StoreScope; taskId: string; contextId: string }> {
    this.flushRows();
    return this.rows.inFlight().map((r) => ({
      scope: { tenant: r.tenant, agentId: r.agent },
      taskId: r.id,
      contextId: r.context_id,
    }));
  }

  putPushConfig(scope: StoreScope, config: TaskPushNotificationConfig, version = "1.0"): void {
    const r = this.records.get(scope, config.taskId);
    this.pushConfigs.put({ pk: r.pk, config, version });
    r.mayPush = true;
  }

  getPushConfig(scope: StoreScope, taskId: string, id: string): TaskPushNotificationConfig | undefined {
    const r = this.records.find(scope, taskId);
    return r && this.pushConfigs.get(r.pk, id);
  }

  listPushConfigs(scope: StoreScope, taskId: string): TaskPushNotificationConfig[] {
    const r = this.records.find(scope, taskId);
    return r ? this.pushConfigs.list(r.pk) : [];
  }

  countPushConfigs(scope: StoreScope, taskId: string): number {
    const r = this.records.find(scope, taskId);
    return r ? this.pushConfigs.count(r.pk) : 0;
  }

  deletePushConfig(scope: StoreScope, taskId: string, id: string): boolean {
    const r = this.records.find(scope, taskId);
    if (!r) return false;
    // Deleting a config stops its future deliveries and leaves no rows behind.
    return this.write(() => {
      this.outbox.dropConfig(r.pk, id);
      this.deliveryLog.dropConfig(r.pk, id);
      return this.pushConfigs.delete(r.pk, id);
    });
  }

  dueDeliveries(nowMs: number, limit: number): PushDelivery[] {
    return this.deliveries.due(nowMs, limit);
  }

  nextDeliveryAt(): number | undefined {
    return this.outbox.nextDueAt();
  }

  deliverySucceeded(id: number): void {
    this.deliveries.succeeded(id);
  }

  deliveryFailed(id: number, retryAtMs: number | undefined, error: string): void {
    this.deliveries.failed(id, retryAtMs, error);
  }

  pushDeliveryState(scope: StoreScope, taskId: string): PushDeliveryState[] {
    return this.deliveries.state(scope, taskId);
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
