import type Database from "better-sqlite3";
import { TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import type { StoreScope } from "../task-store.js";
import { expectRow } from "./row-codecs.js";

/** A `tasks` row as the store reads it: everything but the history and artifacts, which have tables of their own. */
export interface TaskRow {
  readonly pk: number;
  readonly id: string;
  readonly context_id: string;
  readonly state: number;
  /** The TaskStatus, protobuf binary. */
  readonly status: Buffer;
  readonly metadata: string | null;
  readonly last_seq: number;
  /** When the status took effect (ms), and the write order among equal instants: ListTasks' keyset. */
  readonly status_ms: number;
  readonly touch: number;
}

/** The columns of a new task row. */
export interface NewTaskRow {
  readonly scope: StoreScope;
  readonly id: string;
  readonly contextId: string;
  readonly state: TaskState;
  readonly status: Uint8Array;
  readonly statusMs: number;
  readonly touch: number;
  readonly metadata: string | null;
}

/** A status change of a task row; it also takes the next seq of the event log. */
export interface StatusChange {
  readonly pk: number;
  readonly state: TaskState;
  readonly status: Uint8Array;
  readonly statusMs: number;
  readonly touch: number;
}

/** A task still SUBMITTED or WORKING, and where it lives. */
export interface InFlightRow {
  readonly tenant: string;
  readonly agent: string;
  readonly id: string;
  readonly context_id: string;
}

const COLUMNS = "pk, id, context_id, state, status, metadata, last_seq, status_ms, touch";

/**
 * The `tasks` table: one row per task with its current status and the
 * counters its children are numbered by (last_seq for the event log,
 * history_count, artifact_count).
 */
export class TaskRows {
  private readonly byKeyStmt: Database.Statement<[string, string, string], TaskRow>;
  private readonly byPkStmt: Database.Statement<[number], TaskRow>;
  private readonly insertStmt: Database.Statement<[string, string, string, string, number, Uint8Array, number, number, string | null, number]>;
  private readonly bumpSeqStmt: Database.Statement<[number], { last_seq: number }>;
  private readonly setStatusStmt: Database.Statement<[number, Uint8Array, number, number, number], { last_seq: number }>;
  private readonly nextHistoryStmt: Database.Statement<[number], { history_count: number }>;
  private readonly nextArtifactStmt: Database.Statement<[number], { artifact_count: number }>;
  private readonly inFlightStmt: Database.Statement<[], InFlightRow>;
  private readonly maxTouchStmt: Database.Statement<[], { t: number }>;

  constructor(db: Database.Database) {
    this.byKeyStmt = db.prepare(`SELECT ${COLUMNS} FROM tasks WHERE tenant = ? AND agent = ? AND id = ?`);
    this.byPkStmt = db.prepare(`SELECT ${COLUMNS} FROM tasks WHERE pk = ?`);
    this.insertStmt = db.prepare(
      `INSERT INTO tasks (tenant, agent, id, context_id, state, status, status_ms, touch, metadata, last_seq, history_count, artifact_count, created_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?)`,
    );
    this.bumpSeqStmt = db.prepare(`UPDATE tasks SET last_seq = last_seq + 1 WHERE pk = ? RETURNING last_seq`);
    this.setStatusStmt = db.prepare(
      `UPDATE tasks SET state = ?, status = ?, status_ms = ?, touch = ?, last_seq = last_seq + 1 WHERE pk = ? RETURNING last_seq`,
    );
    this.nextHistoryStmt = db.prepare(`UPDATE tasks SET history_count = history_count + 1 WHERE pk = ? RETURNING history_count`);
    this.nextArtifactStmt = db.prepare(`UPDATE tasks SET artifact_count = artifact_count + 1 WHERE pk = ? RETURNING artifact_count`);
    this.inFlightStmt = db.prepare(`SELECT tenant, agent, id, context_id FROM tasks WHERE state IN (${TaskState.SUBMITTED}, ${TaskState.WORKING})`);
    this.maxTouchStmt = db.prepare(`SELECT COALESCE(MAX(touch), 0) AS t FROM tasks`);
  }

  byKey(scope: StoreScope, id: string): TaskRow | undefined {
    return this.byKeyStmt.get(scope.tenant, scope.agentId, id);
  }

  byPk(pk: number): TaskRow | undefined {
    return this.byPkStmt.get(pk);
  }

  /** Inserts a task with empty counters; returns its rowid. */
  insert(row: NewTaskRow): number {
    const info = this.insertStmt.run(
      row.scope.tenant,
      row.scope.agentId,
      row.id,
      row.contextId,
      row.state,
      row.status,
      row.statusMs,
      row.touch,
      row.metadata,
      Date.now(),
    );
    return Number(info.lastInsertRowid);
  }

  /** Takes the next seq of the task's event log. */
  nextSeq(pk: number): number {
    return expectRow(this.bumpSeqStmt.get(pk), "the next event seq").last_seq;
  }

  /** Sets the status and takes the next seq of the event log. */
  setStatus(change: StatusChange): number {
    return expectRow(this.setStatusStmt.get(change.state, change.status, change.statusMs, change.touch, change.pk), "a status change").last_seq;
  }

  /** Takes the next index of the task's history. */
  nextHistoryIndex(pk: number): number {
    return expectRow(this.nextHistoryStmt.get(pk), "the next history index").history_count - 1;
  }

  /** Takes the next position among the task's artifacts. */
  nextArtifactOrd(pk: number): number {
    return expectRow(this.nextArtifactStmt.get(pk), "the next artifact position").artifact_count;
  }

  /** Tasks left SUBMITTED or WORKING, across every scope. */
  inFlight(): InFlightRow[] {
    return this.inFlightStmt.all();
  }

  /** The highest write order given so far: the store continues from it. */
  maxTouch(): number {
    return expectRow(this.maxTouchStmt.get(), "the highest touch").t;
  }
}
