import type Database from "better-sqlite3";
import { TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import { IN_FLIGHT_SQL } from "../task-states.js";
import type { StoreScope } from "../task-store.js";
import { expectRow } from "../encoding/index.js";

/** A `tasks` row as ListTasks reads it: everything a Task needs but its history and artifacts, which have tables of their own. */
export interface TaskRow {
  readonly pk: number;
  readonly id: string;
  readonly context_id: string;
  readonly state: number;
  /** The TaskStatus, protobuf binary. */
  readonly status: Uint8Array;
  readonly metadata: string | null;
  readonly last_seq: number;
  /** When the status took effect (ms), and the write order among equal instants: ListTasks' keyset. */
  readonly status_ms: number;
  readonly touch: number;
  readonly history_count: number;
  readonly artifact_count: number;
}

/** What a Task is loaded from: a task row, held (a record) or just read (ListTasks). */
export interface TaskSource {
  readonly pk: number;
  readonly id: string;
  readonly contextId: string;
  readonly status: Uint8Array;
  readonly metadata: string | null;
  readonly historyCount: number;
  readonly artifactCount: number;
}

/** The columns a Task is loaded from, under the names the store's records use. */
export function sourceOf(r: TaskRow): TaskSource {
  return {
    pk: r.pk,
    id: r.id,
    contextId: r.context_id,
    status: r.status,
    metadata: r.metadata,
    historyCount: r.history_count,
    artifactCount: r.artifact_count,
  };
}

/** A row read to be written to: with the scope it lives in and whether the task has push configs. */
export interface FullTaskRow extends TaskRow {
  readonly tenant: string;
  readonly agent: string;
  /** 1 when at least one push config hangs off the task. */
  readonly has_push: number;
}

/** Every column of a task row that changes, as they now stand. */
export interface TaskRowValues {
  readonly state: TaskState;
  readonly status: Uint8Array;
  readonly statusMs: number;
  readonly touch: number;
  readonly lastSeq: number;
  readonly historyCount: number;
  readonly artifactCount: number;
}

/** A new task row, with the rowid the store gave it. */
export interface NewTaskRow extends TaskRowValues {
  readonly pk: number;
  readonly tenant: string;
  readonly agent: string;
  readonly id: string;
  readonly contextId: string;
  readonly metadata: string | null;
  readonly createdMs: number;
}

/** A task still SUBMITTED or WORKING, and where it lives. */
export interface InFlightRow {
  readonly tenant: string;
  readonly agent: string;
  readonly id: string;
  readonly context_id: string;
}

/** The columns ListTasks and the task loader read, in the order of TaskRow. */
export const TASK_COLUMNS = "pk, id, context_id, state, status, metadata, last_seq, status_ms, touch, history_count, artifact_count";

type RowValues = [state: number, status: Uint8Array, statusMs: number, touch: number, lastSeq: number, historyCount: number, artifactCount: number];

/**
 * The `tasks` table: one row per task with its current status and the
 * counters its children are numbered by (last_seq for the event log,
 * history_count, artifact_count). The store writes a row once per
 * transaction, from the values it holds (see task-records.ts).
 */
export class TaskRows {
  private readonly byKeyStmt: Database.Statement<[string, string, string], FullTaskRow>;
  private readonly byPkStmt: Database.Statement<[number], TaskRow>;
  private readonly insertStmt: Database.Statement<[number, string, string, string, string, string | null, number, ...RowValues]>;
  private readonly updateStmt: Database.Statement<[...RowValues, number]>;
  private readonly updateCountersStmt: Database.Statement<[lastSeq: number, historyCount: number, artifactCount: number, pk: number]>;
  private readonly inFlightStmt: Database.Statement<[], InFlightRow>;
  private readonly maxTouchStmt: Database.Statement<[], { t: number }>;
  private readonly maxPkStmt: Database.Statement<[], { pk: number }>;

  constructor(db: Database.Database) {
    this.byKeyStmt = db.prepare(
      `SELECT ${TASK_COLUMNS}, tenant, agent, EXISTS (SELECT 1 FROM push_configs c WHERE c.task_pk = tasks.pk) AS has_push
       FROM tasks WHERE tenant = ? AND agent = ? AND id = ?`,
    );
    this.byPkStmt = db.prepare(`SELECT ${TASK_COLUMNS} FROM tasks WHERE pk = ?`);
    this.insertStmt = db.prepare(
      `INSERT INTO tasks (pk, tenant, agent, id, context_id, metadata, created_ms, state, status, status_ms, touch, last_seq, history_count, artifact_count)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.updateStmt = db.prepare(
      `UPDATE tasks SET state = ?, status = ?, status_ms = ?, touch = ?, last_seq = ?, history_count = ?, artifact_count = ? WHERE pk = ?`,
    );
    // Without the status columns: their three indexes and the state counters are left alone.
    this.updateCountersStmt = db.prepare(`UPDATE tasks SET last_seq = ?, history_count = ?, artifact_count = ? WHERE pk = ?`);
    this.inFlightStmt = db.prepare(`SELECT tenant, agent, id, context_id FROM tasks WHERE state IN (${IN_FLIGHT_SQL})`);
    this.maxTouchStmt = db.prepare(`SELECT COALESCE(MAX(touch), 0) AS t FROM tasks`);
    this.maxPkStmt = db.prepare(`SELECT COALESCE(MAX(pk), 0) AS pk FROM tasks`);
  }

  byKey(scope: StoreScope, id: string): FullTaskRow | undefined {
    return this.byKeyStmt.get(scope.tenant, scope.agentId, id);
  }

  byPk(pk: number): TaskRow | undefined {
    return this.byPkStmt.get(pk);
  }

  /** Inserts a task. Throws when the id is taken in the scope. */
  insert(row: NewTaskRow): void {
    this.insertStmt.run(
      row.pk,
      row.tenant,
      row.agent,
      row.id,
      row.contextId,
      row.metadata,
      row.createdMs,
      row.state,
      row.status,
      row.statusMs,
      row.touch,
      row.lastSeq,
      row.historyCount,
      row.artifactCount,
    );
  }

  /** Writes a row's values; `statusChanged` false leaves the status columns (and their indexes) untouched. */
  update(pk: number, v: TaskRowValues, statusChanged: boolean): void {
    if (statusChanged) this.updateStmt.run(v.state, v.status, v.statusMs, v.touch, v.lastSeq, v.historyCount, v.artifactCount, pk);
    else this.updateCountersStmt.run(v.lastSeq, v.historyCount, v.artifactCount, pk);
  }

  /** Tasks left SUBMITTED or WORKING, across every scope. */
  inFlight(): InFlightRow[] {
    return this.inFlightStmt.all();
  }

  /** The highest rowid given so far: the store numbers new tasks from it. */
  maxPk(): number {
    return expectRow(this.maxPkStmt.get(), "the highest rowid").pk;
  }

  /** The highest write order given so far: the store continues from it. */
  maxTouch(): number {
    return expectRow(this.maxTouchStmt.get(), "the highest touch").t;
  }
}
