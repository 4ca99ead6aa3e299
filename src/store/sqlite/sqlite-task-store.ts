import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import {
  ArtifactSchema,
  MessageSchema,
  PartSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  TaskState,
  TaskStatusSchema,
  type Artifact,
  type Message,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
  type TaskStatus,
} from "../../../gen/a2a/v1/a2a_pb.js";
import type {
  ArtifactChange,
  LoggedEvent,
  NewTask,
  OutboxStats,
  PushDelivery,
  SendKey,
  SentMessage,
  StoreScope,
  TaskHead,
  TaskPage,
  TaskQuery,
  TaskStore,
  TaskView,
} from "../task-store.js";
import { migrate } from "./migrations.js";

/** Options of the SQLite store. */
export interface SqliteStoreOptions {
  /** Database file path, or ":memory:". */
  readonly filename: string;
  /** How long a writer waits for a lock held by another connection (ms). */
  readonly busyTimeoutMs?: number;
  /** Messages kept in a task's history; older ones are dropped as new ones arrive. Default: all. */
  readonly maxHistoryMessages?: number;
}

interface TaskRow {
  pk: number;
  id: string;
  context_id: string;
  state: number;
  status: Buffer;
  metadata: string | null;
  last_seq: number;
  status_ms: number;
  touch: number;
}

type Stmt = Database.Statement<unknown[], unknown>;

const TERMINAL_STATES = new Set<TaskState>([TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED]);

/**
 * Reads a row back. The default recursion limit (100 levels) is below what a
 * valid request can nest inside a task (a data part 48 JSON levels deep is
 * ~100 message levels under Task); the store reads only what it wrote, so
 * its rows are decoded with room to spare, or one stored message would make
 * the task and every listing of its tenant unreadable.
 */
function decode<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array): MessageShape<Desc> {
  return fromBinary(schema, bytes, { recursionLimit: 1_000 });
}

function statusMs(status: TaskStatus): number {
  return status.timestamp ? timestampMs(status.timestamp) : Date.now();
}

/**
 * The default TaskStore: better-sqlite3 in WAL mode. Statements are prepared
 * once; every write is one `BEGIN IMMEDIATE` transaction; an event, a
 * message or an artifact chunk is one new row plus one counter update on the
 * task, never a rewrite of the task.
 */
export class SqliteTaskStore implements TaskStore {
  private readonly db: Database.Database;
  private readonly s: Record<string, Stmt>;
  private readonly listStmts = new Map<string, { page: Stmt; count: Stmt }>();
  /** Prepared on first use: only a hub that serves metrics or readiness asks. */
  private outboxQuery: Stmt | undefined;
  private pingQuery: Stmt | undefined;
  private touchCounter: number;
  /** better-sqlite3 transaction functions are meant to be made once: this one runs any body. */
  private readonly tx: Database.Transaction<(body: () => unknown) => unknown>;
  /** (tenant, agent, id) → rowid: rows are never deleted, so an entry never goes stale. */
  private readonly pks = new Map<string, number>();
  private readonly maxHistory: number;

  constructor(options: SqliteStoreOptions) {
    if (options.filename !== ":memory:") mkdirSync(dirname(options.filename), { recursive: true });
    this.db = new Database(options.filename);
    this.db.pragma("journal_mode = WAL");
    // WAL + NORMAL: a committed transaction survives a process crash; only an
    // OS crash can lose the last few, which is the trade SQLite documents.
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    this.db.pragma("foreign_keys = OFF");
    // A checkpoint syncs the disk and runs inline on the commit that crosses
    // the threshold: fewer, larger ones (16 MiB of WAL) keep that off most commits.
    this.db.pragma("wal_autocheckpoint = 4000");
    migrate(this.db);
    this.maxHistory = options.maxHistoryMessages ?? Number.POSITIVE_INFINITY;
    const p = (sql: string) => this.db.prepare(sql);
    this.s = {
      head: p(`SELECT pk, id, context_id, state, status, metadata, last_seq, status_ms, touch FROM tasks WHERE tenant = ? AND agent = ? AND id = ?`),
      insertTask: p(`INSERT INTO tasks (tenant, agent, id, context_id, state, status, status_ms, touch, metadata, last_seq, history_count, artifact_count, created_ms)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?)`),
      bumpSeq: p(`UPDATE tasks SET last_seq = last_seq + 1 WHERE pk = ? RETURNING last_seq`),
      setStatus: p(`UPDATE tasks SET state = ?, status = ?, status_ms = ?, touch = ?, last_seq = last_seq + 1 WHERE pk = ? RETURNING last_seq`),
      insertEvent: p(`INSERT INTO events (task_pk, seq, event) VALUES (?, ?, ?)`),
      eventsAfter: p(`SELECT seq, event FROM events WHERE task_pk = ? AND seq > ? ORDER BY seq`),
      eventsPage: p(`SELECT seq, event FROM events WHERE task_pk = ? AND seq > ? ORDER BY seq LIMIT ?`),
      nextHistory: p(`UPDATE tasks SET history_count = history_count + 1 WHERE pk = ? RETURNING history_count`),
      insertHistory: p(`INSERT INTO history (task_pk, idx, message) VALUES (?, ?, ?)`),
      trimHistory: p(`DELETE FROM history WHERE task_pk = ? AND idx <= ?`),
      rememberSent: p(`INSERT INTO sent_messages (tenant, agent, message_id, fingerprint, task_id, reply, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
                       ON CONFLICT (tenant, agent, message_id) DO NOTHING`),
      findSent: p(`SELECT fingerprint, task_id, reply FROM sent_messages WHERE tenant = ? AND agent = ? AND message_id = ?`),
      rememberKey: p(`INSERT INTO idempotency_keys (tenant, agent, idem_key, fingerprint, task_id, reply, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
                      ON CONFLICT (tenant, agent, idem_key) DO NOTHING`),
      findKey: p(`SELECT fingerprint, task_id, reply FROM idempotency_keys WHERE tenant = ? AND agent = ? AND idem_key = ?`),
      historyAll: p(`SELECT message FROM history WHERE task_pk = ? ORDER BY idx`),
      historyLast: p(`SELECT message FROM history WHERE task_pk = ? ORDER BY idx DESC LIMIT ?`),
      artifactHead: p(`SELECT part_count, sealed FROM artifacts WHERE task_pk = ? AND artifact_id = ?`),
      nextArtifactOrd: p(`UPDATE tasks SET artifact_count = artifact_count + 1 WHERE pk = ? RETURNING artifact_count`),
      insertArtifact: p(`INSERT INTO artifacts (task_pk, artifact_id, ord, head, part_count, sealed) VALUES (?, ?, ?, ?, ?, ?)`),
      replaceArtifact: p(`UPDATE artifacts SET head = ?, part_count = ?, sealed = ? WHERE task_pk = ? AND artifact_id = ?`),
      growArtifact: p(`UPDATE artifacts SET part_count = part_count + ?, sealed = MAX(sealed, ?) WHERE task_pk = ? AND artifact_id = ?`),
      deleteParts: p(`DELETE FROM artifact_parts WHERE task_pk = ? AND artifact_id = ?`),
      insertPart: p(`INSERT INTO artifact_parts (task_pk, artifact_id, idx, part) VALUES (?, ?, ?, ?)`),
      artifacts: p(`SELECT artifact_id, head FROM artifacts WHERE task_pk = ? ORDER BY ord`),
      parts: p(`SELECT artifact_id, part FROM artifact_parts WHERE task_pk = ? ORDER BY artifact_id, idx`),
      inFlight: p(`SELECT tenant, agent, id, context_id FROM tasks WHERE state IN (${TaskState.SUBMITTED}, ${TaskState.WORKING})`),
      putPush: p(`INSERT INTO push_configs (task_pk, id, config, created_ms, version) VALUES (?, ?, ?, ?, ?)
                  ON CONFLICT (task_pk, id) DO UPDATE SET config = excluded.config, version = excluded.version`),
      getPush: p(`SELECT config FROM push_configs WHERE task_pk = ? AND id = ?`),
      listPush: p(`SELECT config FROM push_configs WHERE task_pk = ? ORDER BY created_ms, id`),
      countPush: p(`SELECT COUNT(*) AS n FROM push_configs WHERE task_pk = ?`),
      deletePush: p(`DELETE FROM push_configs WHERE task_pk = ? AND id = ?`),
      maxTouch: p(`SELECT COALESCE(MAX(touch), 0) AS t FROM tasks`),
      enqueuePush: p(`INSERT INTO push_outbox (task_pk, config_id, seq, kind, next_at_ms) SELECT task_pk, id, ?, ?, ? FROM push_configs WHERE task_pk = ?`),
      dropPushRows: p(`DELETE FROM push_outbox WHERE task_pk = ? AND config_id = ?`),
      due: p(`SELECT o.id, o.seq, o.kind, o.attempts, o.task_pk, t.tenant, t.agent, t.id AS task_id, c.config, c.version
              FROM push_outbox o
              JOIN tasks t ON t.pk = o.task_pk
              JOIN push_configs c ON c.task_pk = o.task_pk AND c.id = o.config_id
              WHERE o.dead = 0 AND o.next_at_ms <= ?
                AND NOT EXISTS (SELECT 1 FROM push_outbox e WHERE e.task_pk = o.task_pk AND e.config_id = o.config_id AND e.dead = 0 AND e.id < o.id)
              ORDER BY o.id LIMIT ?`),
      nextDue: p(`SELECT MIN(next_at_ms) AS at FROM push_outbox WHERE dead = 0`),
      deliveryDone: p(`DELETE FROM push_outbox WHERE id = ?`),
      deliveryRetry: p(`UPDATE push_outbox SET attempts = attempts + 1, next_at_ms = ?, last_error = ? WHERE id = ?`),
      deliveryDead: p(`UPDATE push_outbox SET attempts = attempts + 1, dead = 1, last_error = ? WHERE id = ?`),
      eventAt: p(`SELECT event FROM events WHERE task_pk = ? AND seq = ?`),
      taskByPk: p(`SELECT pk, id, context_id, state, status, metadata, last_seq, status_ms, touch FROM tasks WHERE pk = ?`),
    };
    this.touchCounter = (this.s.maxTouch!.get() as { t: number }).t;
    this.tx = this.db.transaction((body: () => unknown) => body());
  }

  private row(scope: StoreScope, taskId: string): TaskRow | undefined {
    return this.s.head!.get(scope.tenant, scope.agentId, taskId) as TaskRow | undefined;
  }

  /** The rowid of a task that must exist (writes only follow a successful lookup). */
  private pkOf(scope: StoreScope, taskId: string): number {
    const key = `${scope.tenant}\u0000${scope.agentId}\u0000${taskId}`;
    let pk = this.pks.get(key);
    if (pk === undefined) {
      const r = this.row(scope, taskId);
      if (!r) throw new Error(`store: task ${taskId} not found in scope ${scope.tenant}/${scope.agentId}`);
      pk = r.pk;
      if (this.pks.size >= 100_000) this.pks.clear();
      this.pks.set(key, pk);
    }
    return pk;
  }

  /** Set during a transaction that queued webhook deliveries; announced after it commits. */
  private queuedPush = false;
  onOutbox?: () => void;

  private logEvent(pk: number, seq: number, event: StreamResponse): void {
    this.s.insertEvent!.run(pk, seq, toBinary(StreamResponseSchema, event));
    // §3.5.3: one delivery per config, in the same transaction as the event.
    const now = Date.now();
    if (this.s.enqueuePush!.run(seq, 0, now, pk).changes > 0) {
      this.queuedPush = true;
      const p = event.payload;
      if (p.case === "statusUpdate" && TERMINAL_STATES.has(p.value.status?.state ?? TaskState.UNSPECIFIED)) {
        this.s.enqueuePush!.run(seq, 1, now, pk);
      }
    }
  }

  /** Runs a write transaction (a savepoint inside a batch) and announces queued deliveries once committed. */
  private write<T>(fn: () => T): T {
    const result = this.tx.immediate(fn) as T;
    if (!this.db.inTransaction) this.announcePush();
    return result;
  }

  private announcePush(): void {
    if (this.queuedPush) {
      this.queuedPush = false;
      this.onOutbox?.();
    }
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
    this.queuedPush = false;
    // Rows created in the batch are gone, and their rowids may be handed out again.
    this.pks.clear();
  }

  private addHistory(pk: number, message: Message): void {
    const { history_count } = this.s.nextHistory!.get(pk) as { history_count: number };
    this.s.insertHistory!.run(pk, history_count - 1, toBinary(MessageSchema, message));
    // The history kept per task is bounded: the oldest messages make room (the event log keeps what happened).
    if (history_count > this.maxHistory) this.s.trimHistory!.run(pk, history_count - 1 - this.maxHistory);
  }

  createTask(scope: StoreScope, task: NewTask, event: StreamResponse): number {
    return this.write(() => {
      const info = this.s.insertTask!.run(
        scope.tenant,
        scope.agentId,
        task.id,
        task.contextId,
        task.status.state,
        toBinary(TaskStatusSchema, task.status),
        statusMs(task.status),
        ++this.touchCounter,
        task.metadata ? JSON.stringify(task.metadata) : null,
        Date.now(),
      );
      const pk = Number(info.lastInsertRowid);
      this.pks.set(`${scope.tenant}\u0000${scope.agentId}\u0000${task.id}`, pk);
      for (const m of task.history) this.addHistory(pk, m);
      const { last_seq } = this.s.bumpSeq!.get(pk) as { last_seq: number };
      this.logEvent(pk, last_seq, event);
      return last_seq;
    });
  }

  getHead(scope: StoreScope, taskId: string): TaskHead | undefined {
    const r = this.row(scope, taskId);
    return r && { id: r.id, contextId: r.context_id, state: r.state as TaskState, lastSeq: r.last_seq };
  }

  private load(r: TaskRow, view: TaskView = {}): Task {
    const task = create(TaskSchema, {
      id: r.id,
      contextId: r.context_id,
      status: decode(TaskStatusSchema, r.status),
      metadata: r.metadata ? (JSON.parse(r.metadata) as Task["metadata"]) : undefined,
    });
    const n = view.historyLength;
    if (n === undefined) {
      task.history = (this.s.historyAll!.all(r.pk) as { message: Buffer }[]).map((h) => decode(MessageSchema, h.message));
    } else if (n > 0) {
      task.history = (this.s.historyLast!.all(r.pk, n) as { message: Buffer }[])
        .map((h) => decode(MessageSchema, h.message))
        .reverse();
    }
    if (view.includeArtifacts !== false) task.artifacts = this.loadArtifacts(r.pk);
    return task;
  }

  private loadArtifacts(pk: number): Artifact[] {
    const heads = this.s.artifacts!.all(pk) as { artifact_id: string; head: Buffer }[];
    if (heads.length === 0) return [];
    const byId = new Map<string, Artifact>();
    const out = heads.map((h) => {
      const a = decode(ArtifactSchema, h.head);
      byId.set(h.artifact_id, a);
      return a;
    });
    for (const p of this.s.parts!.all(pk) as { artifact_id: string; part: Buffer }[]) {
      byId.get(p.artifact_id)?.parts.push(decode(PartSchema, p.part));
    }
    return out;
  }

  getTask(scope: StoreScope, taskId: string, view?: TaskView): Task | undefined {
    const r = this.row(scope, taskId);
    return r && this.load(r, view);
  }

  snapshot(scope: StoreScope, taskId: string, view?: TaskView): { task: Task; seq: number } | undefined {
    // better-sqlite3 reads are synchronous: nothing can write between these two reads.
    const r = this.row(scope, taskId);
    return r && { task: this.load(r, view), seq: r.last_seq };
  }

  appendHistory(scope: StoreScope, taskId: string, message: Message): void {
    this.write(() => this.addHistory(this.pkOf(scope, taskId), message));
  }

  setStatus(scope: StoreScope, taskId: string, status: TaskStatus, event: StreamResponse): number {
    return this.write(() => {
      const pk = this.pkOf(scope, taskId);
      if (status.message) this.addHistory(pk, status.message);
      const { last_seq } = this.s.setStatus!.get(
        status.state,
        toBinary(TaskStatusSchema, status),
        statusMs(status),
        ++this.touchCounter,
        pk,
      ) as { last_seq: number };
      this.logEvent(pk, last_seq, event);
      return last_seq;
    });
  }

  artifactSealed(scope: StoreScope, taskId: string, artifactId: string): boolean | undefined {
    const r = this.row(scope, taskId);
    if (!r) return undefined;
    const a = this.s.artifactHead!.get(r.pk, artifactId) as { sealed: number } | undefined;
    return a ? a.sealed === 1 : undefined;
  }

  changeArtifact(scope: StoreScope, taskId: string, change: ArtifactChange, event: StreamResponse): number {
    return this.write(() => {
      const pk = this.pkOf(scope, taskId);
      const { artifact, append, lastChunk } = change;
      const id = artifact.artifactId;
      const existing = this.s.artifactHead!.get(pk, id) as { part_count: number } | undefined;
      const sealed = lastChunk ? 1 : 0;
      let first = 0;
      if (!existing) {
        const { artifact_count } = this.s.nextArtifactOrd!.get(pk) as { artifact_count: number };
        this.s.insertArtifact!.run(pk, id, artifact_count, headOf(artifact), artifact.parts.length, sealed);
      } else if (!append) {
        // §4.2.2: append false replaces the artifact.
        this.s.deleteParts!.run(pk, id);
        this.s.replaceArtifact!.run(headOf(artifact), artifact.parts.length, sealed, pk, id);
      } else {
        first = existing.part_count;
        this.s.growArtifact!.run(artifact.parts.length, sealed, pk, id);
      }
      artifact.parts.forEach((part, i) => this.s.insertPart!.run(pk, id, first + i, toBinary(PartSchema, part)));
      const { last_seq } = this.s.bumpSeq!.get(pk) as { last_seq: number };
      this.logEvent(pk, last_seq, event);
      return last_seq;
    });
  }

  eventsAfter(scope: StoreScope, taskId: string, afterSeq: number, limit?: number): LoggedEvent[] {
    const r = this.row(scope, taskId);
    if (!r) return [];
    const rows = limit === undefined ? this.s.eventsAfter!.all(r.pk, afterSeq) : this.s.eventsPage!.all(r.pk, afterSeq, limit);
    return (rows as { seq: number; event: Buffer }[]).map((e) => ({
      seq: e.seq,
      event: decode(StreamResponseSchema, e.event),
    }));
  }

  private listStatements(q: TaskQuery): { page: Stmt; count: Stmt } {
    const key = [q.contextId !== undefined, q.state !== undefined, q.statusAfterMs !== undefined, q.after !== undefined].join();
    let stmts = this.listStmts.get(key);
    if (!stmts) {
      const where = ["tenant = @tenant", "agent = @agent"];
      if (q.contextId !== undefined) where.push("context_id = @contextId");
      if (q.state !== undefined) where.push("state = @state");
      if (q.statusAfterMs !== undefined) where.push("status_ms > @statusAfterMs");
      const filter = where.join(" AND ");
      const cursor = q.after !== undefined ? " AND (status_ms < @afterMs OR (status_ms = @afterMs AND touch < @afterTouch))" : "";
      stmts = {
        page: this.db.prepare(
          `SELECT pk, id, context_id, state, status, metadata, last_seq, status_ms, touch FROM tasks
           WHERE ${filter}${cursor} ORDER BY status_ms DESC, touch DESC LIMIT @limit`,
        ),
        // Without a context or time filter the trigger-kept counters answer in O(states).
        count:
          q.contextId === undefined && q.statusAfterMs === undefined
            ? this.db.prepare(`SELECT COALESCE(SUM(n), 0) AS n FROM task_counts WHERE ${filter}`)
            : this.db.prepare(`SELECT COUNT(*) AS n FROM tasks WHERE ${filter}`),
      };
      this.listStmts.set(key, stmts);
    }
    return stmts;
  }

  listTasks(scope: StoreScope, q: TaskQuery): TaskPage {
    const { page, count } = this.listStatements(q);
    const filters: Record<string, unknown> = { tenant: scope.tenant, agent: scope.agentId };
    if (q.contextId !== undefined) filters.contextId = q.contextId;
    if (q.state !== undefined) filters.state = q.state;
    if (q.statusAfterMs !== undefined) filters.statusAfterMs = q.statusAfterMs;
    return this.tx.deferred(() => {
      const rows = page.all({
        ...filters,
        ...(q.after ? { afterMs: q.after.statusMs, afterTouch: q.after.touch } : {}),
        limit: q.limit + 1,
      }) as TaskRow[];
      const more = rows.length > q.limit;
      if (more) rows.length = q.limit;
      const last = rows[rows.length - 1];
      return {
        tasks: rows.map((r) => this.load(r, q)),
        next: more && last ? { statusMs: last.status_ms, touch: last.touch } : undefined,
        total: (count.get(filters) as { n: number }).n,
      };
    }) as TaskPage;
  }

  rememberSent(scope: StoreScope, sent: SentMessage): void {
    const insert = sent.key.by === "idempotencyKey" ? this.s.rememberKey! : this.s.rememberSent!;
    this.write(() =>
      insert.run(
        scope.tenant,
        scope.agentId,
        sent.key.value,
        sent.fingerprint,
        sent.taskId ?? null,
        sent.reply ? toBinary(MessageSchema, sent.reply) : null,
        Date.now(),
      ),
    );
  }

  findSent(scope: StoreScope, key: SendKey): SentMessage | undefined {
    const find = key.by === "idempotencyKey" ? this.s.findKey! : this.s.findSent!;
    const r = find.get(scope.tenant, scope.agentId, key.value) as { fingerprint: Buffer; task_id: string | null; reply: Buffer | null } | undefined;
    if (!r) return undefined;
    return {
      key,
      fingerprint: r.fingerprint,
      taskId: r.task_id ?? undefined,
      reply: r.reply ? decode(MessageSchema, r.reply) : undefined,
    };
  }

  inFlight(): Array<{ scope: StoreScope; taskId: string; contextId: string }> {
    return (this.s.inFlight!.all() as { tenant: string; agent: string; id: string; context_id: string }[]).map((r) => ({
      scope: { tenant: r.tenant, agentId: r.agent },
      taskId: r.id,
      contextId: r.context_id,
    }));
  }

  putPushConfig(scope: StoreScope, config: TaskPushNotificationConfig, version = "1.0"): void {
    const pk = this.pkOf(scope, config.taskId);
    this.s.putPush!.run(pk, config.id, toBinary(TaskPushNotificationConfigSchema, config), Date.now(), version);
  }

  getPushConfig(scope: StoreScope, taskId: string, id: string): TaskPushNotificationConfig | undefined {
    const r = this.row(scope, taskId);
    const c = r && (this.s.getPush!.get(r.pk, id) as { config: Buffer } | undefined);
    return c ? decode(TaskPushNotificationConfigSchema, c.config) : undefined;
  }

  listPushConfigs(scope: StoreScope, taskId: string): TaskPushNotificationConfig[] {
    const r = this.row(scope, taskId);
    if (!r) return [];
    return (this.s.listPush!.all(r.pk) as { config: Buffer }[]).map((c) => decode(TaskPushNotificationConfigSchema, c.config));
  }

  countPushConfigs(scope: StoreScope, taskId: string): number {
    const r = this.row(scope, taskId);
    return r ? (this.s.countPush!.get(r.pk) as { n: number }).n : 0;
  }

  deletePushConfig(scope: StoreScope, taskId: string, id: string): boolean {
    const r = this.row(scope, taskId);
    if (!r) return false;
    // Deleting a config stops its future deliveries and leaves no rows behind.
    return this.write(() => {
      this.s.dropPushRows!.run(r.pk, id);
      return this.s.deletePush!.run(r.pk, id).changes > 0;
    });
  }

  dueDeliveries(nowMs: number, limit: number): PushDelivery[] {
    const rows = this.s.due!.all(nowMs, limit) as {
      id: number; seq: number; kind: number; attempts: number; task_pk: number; tenant: string; agent: string; task_id: string; config: Buffer; version: string;
    }[];
    const out: PushDelivery[] = [];
    for (const r of rows) {
      let payload: StreamResponse | undefined;
      if (r.kind === 1) {
        const t = this.s.taskByPk!.get(r.task_pk) as TaskRow | undefined;
        if (t) payload = create(StreamResponseSchema, { payload: { case: "task", value: this.load(t) } });
      } else {
        const e = this.s.eventAt!.get(r.task_pk, r.seq) as { event: Buffer } | undefined;
        if (e) payload = decode(StreamResponseSchema, e.event);
      }
      if (!payload) {
        this.s.deliveryDead!.run("event no longer stored", r.id);
        continue;
      }
      out.push({
        id: r.id,
        scope: { tenant: r.tenant, agentId: r.agent },
        taskId: r.task_id,
        config: decode(TaskPushNotificationConfigSchema, r.config),
        seq: r.seq,
        payload,
        attempts: r.attempts,
        version: r.version,
      });
    }
    return out;
  }

  nextDeliveryAt(): number | undefined {
    return (this.s.nextDue!.get() as { at: number | null }).at ?? undefined;
  }

  deliverySucceeded(id: number): void {
    this.s.deliveryDone!.run(id);
  }

  deliveryFailed(id: number, retryAtMs: number | undefined, error: string): void {
    if (retryAtMs === undefined) this.s.deliveryDead!.run(error.slice(0, 1000), id);
    else this.s.deliveryRetry!.run(retryAtMs, error.slice(0, 1000), id);
  }

  outboxStats(nowMs: number): OutboxStats {
    this.outboxQuery ??= this.db.prepare(`SELECT COUNT(*) AS n, MIN(CASE WHEN next_at_ms <= ? THEN next_at_ms END) AS due FROM push_outbox WHERE dead = 0`);
    const r = this.outboxQuery.get(nowMs) as { n: number; due: number | null };
    return { pending: r.n, oldestDueMs: r.due ?? undefined };
  }

  ping(): void {
    this.pingQuery ??= this.db.prepare("SELECT 1");
    this.pingQuery.get();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** An artifact without its parts: what the `artifacts.head` column holds. */
function headOf(artifact: Artifact): Buffer {
  return Buffer.from(toBinary(ArtifactSchema, { ...artifact, parts: [] }));
}
