import { create } from "@bufbuild/protobuf";
import { ArtifactSchema, MessageSchema, PartSchema, TaskSchema, TaskStatusSchema, type Task, type TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import { decode, decodeMetadata, type TaskPieces } from "../encoding/index.js";
import type { TaskHead, TaskView } from "../task-store.js";

/** A task row with its children gathered into arrays, as one statement reads it (`taskColumns`). */
export interface LoadedRow {
  readonly pk: number;
  readonly tenant: string;
  readonly agent: string;
  readonly id: string;
  readonly context_id: string;
  readonly state: number;
  readonly status: Buffer;
  readonly metadata: string | null;
  readonly last_seq: number;
  readonly status_ms: number;
  readonly touch: number;
  /** The history asked for, oldest first; null when none was asked for or there is none. */
  readonly history: Buffer[] | null;
  /** Every artifact's id and sealed flag, in order (the store's cache keeps them). */
  readonly artifact_ids: string[] | null;
  readonly artifact_sealed: boolean[] | null;
  /** When artifacts were asked for: their heads, part counts and parts (flattened), in order. */
  readonly artifact_heads?: Buffer[] | null;
  readonly artifact_parts?: number[] | null;
  readonly parts?: Buffer[] | null;
}

/**
 * The columns of a task and, through correlated subqueries, its history
 * and artifacts: one statement reads a whole task (one round trip, one
 * snapshot, so the task and the seq it reflects agree). `historyParam` is
 * the placeholder of the history length (NULL = all; 0 = none, never
 * read); artifacts' contents are read only when `withArtifacts`.
 */
export function taskColumns(alias: string, historyParam: string, withArtifacts: boolean): string {
  const t = alias;
  const columns = [
    `${t}.pk, ${t}.tenant, ${t}.agent, ${t}.id, ${t}.context_id, ${t}.state, ${t}.status, ${t}.metadata, ${t}.last_seq, ${t}.status_ms, ${t}.touch`,
    // §3.2.4: the n most recent, oldest first.
    `CASE WHEN ${historyParam}::integer = 0 OR ${t}.history_count = 0 THEN NULL ELSE
       (SELECT array_agg(h.message ORDER BY h.idx) FROM
         (SELECT idx, message FROM history WHERE task_pk = ${t}.pk ORDER BY idx DESC LIMIT ${historyParam}::integer) h) END AS history`,
    `(SELECT array_agg(a.artifact_id ORDER BY a.ord) FROM artifacts a WHERE a.task_pk = ${t}.pk) AS artifact_ids`,
    `(SELECT array_agg(a.sealed ORDER BY a.ord) FROM artifacts a WHERE a.task_pk = ${t}.pk) AS artifact_sealed`,
  ];
  if (withArtifacts) {
    columns.push(
      `(SELECT array_agg(a.head ORDER BY a.ord) FROM artifacts a WHERE a.task_pk = ${t}.pk) AS artifact_heads`,
      `(SELECT array_agg(a.part_count ORDER BY a.ord) FROM artifacts a WHERE a.task_pk = ${t}.pk) AS artifact_parts`,
      `(SELECT array_agg(p.part ORDER BY a.ord, p.idx) FROM artifacts a
          JOIN artifact_parts p ON p.task_pk = a.task_pk AND p.artifact_id = a.artifact_id
          WHERE a.task_pk = ${t}.pk) AS parts`,
    );
  }
  return columns.join(",\n");
}

/** The history length parameter for a view: NULL (all), 0 (none) or n (the n most recent). */
export function historyLimit(view: TaskView): number | null {
  if (view.historyLength === undefined) return null;
  return Math.max(0, view.historyLength);
}

/** A Task from a row `taskColumns` read. */
export function taskOf(row: LoadedRow): Task {
  const task = create(TaskSchema, {
    id: row.id,
    contextId: row.context_id,
    status: decode(TaskStatusSchema, row.status),
    metadata: decodeMetadata(row.metadata),
  });
  if (row.history) task.history = row.history.map((m) => decode(MessageSchema, m));
  if (row.artifact_heads && row.artifact_parts) {
    const parts = row.parts ?? [];
    let next = 0;
    task.artifacts = row.artifact_heads.map((head, i) => {
      const artifact = decode(ArtifactSchema, head);
      const count = row.artifact_parts![i]!;
      artifact.parts = parts.slice(next, next + count).map((p) => decode(PartSchema, p));
      next += count;
      return artifact;
    });
  }
  return task;
}

/** The stored bytes of a row `taskColumns` read, for the Task's wire form without decoding it (encoding/task-wire.ts). */
export function taskPieces(row: LoadedRow): TaskPieces {
  let artifacts: TaskPieces["artifacts"];
  if (row.artifact_heads && row.artifact_parts) {
    const parts = row.parts ?? [];
    let next = 0;
    artifacts = row.artifact_heads.map((head, i) => {
      const count = row.artifact_parts![i]!;
      next += count;
      return { head, parts: parts.slice(next - count, next) };
    });
  }
  return { id: row.id, contextId: row.context_id, status: row.status, artifacts, history: row.history ?? undefined, metadata: row.metadata };
}

/** What the store's cache keeps of a row: its seq, state and which artifacts are sealed. */
export function seenOf(row: LoadedRow): { contextId: string; lastSeq: number; state: TaskState; sealed: Map<string, boolean> } {
  const ids = row.artifact_ids ?? [];
  const sealed = row.artifact_sealed ?? [];
  return { contextId: row.context_id, lastSeq: row.last_seq, state: row.state as TaskState, sealed: new Map(ids.map((id, i) => [id, sealed[i] === true])) };
}

/** A row of the head read: with whether another live replica runs the task now. */
export type HeadRow = LoadedRow & { readonly elsewhere: boolean };

/** The head of a task from its row. */
export function headOf(row: HeadRow): TaskHead {
  return { id: row.id, contextId: row.context_id, state: row.state as TaskState, lastSeq: row.last_seq, ...(row.elsewhere ? { runningElsewhere: true } : {}) };
}
