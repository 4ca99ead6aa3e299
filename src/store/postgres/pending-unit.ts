import { toBinary } from "@bufbuild/protobuf";
import { MessageSchema, TaskPushNotificationConfigSchema, TaskState, type Message, type StreamResponse, type TaskPushNotificationConfig, type TaskStatus } from "../../../gen/a2a/v1/a2a_pb.js";
import { isTerminal } from "../../protocol/index.js";
import { artifactRows, creationRows, encodeMetadata, statusMs, statusRows } from "../encoding/index.js";
import type { ArtifactChange, NewTask, SentMessage, StoreScope } from "../task-store.js";
import type { CachedTask } from "./task-cache.js";

/** One write intent, as `a2a_apply_unit` reads it (apply-unit-sql.ts); blobs are named by 1-based index. */
type UnitOp = Record<string, string | number | boolean | null | number[]>;

/**
 * The writes of one unit of work, in order, waiting for commitBatch: the
 * ops for the database function, the encoded rows they name, and the cached
 * tasks they wrote (held in the cache until the unit settles).
 */
export class PendingUnit {
  readonly ops: UnitOp[] = [];
  readonly blobs: Buffer[] = [];
  readonly touched = new Set<CachedTask>();
  /** Opened by a write outside any unit: the store commits it itself, unless beginBatch() adopted it. */
  ownCommit = false;

  get empty(): boolean {
    return this.ops.length === 0;
  }

  /** Holds a cached task until the unit settles (one pin per unit). */
  touch(entry: CachedTask): void {
    if (this.touched.has(entry)) return;
    this.touched.add(entry);
    entry.pins++;
  }

  private blob(bytes: Uint8Array): number {
    // A view, not a copy: the driver hex-encodes it into the query at once.
    this.blobs.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return this.blobs.length;
  }

  private scoped(kind: string, scope: StoreScope, taskId: string): UnitOp {
    return { k: kind, t: scope.tenant, a: scope.agentId, id: taskId };
  }

  create(scope: StoreScope, task: NewTask, event: StreamResponse): void {
    const rows = creationRows(event, task.status, task.history);
    this.ops.push({
      ...this.scoped("create", scope, task.id),
      ctx: task.contextId,
      md: encodeMetadata(task.metadata),
      st: task.status.state,
      s: this.blob(rows.status),
      sm: statusMs(task.status),
      h: rows.history.map((m) => this.blob(m)),
      e: this.blob(rows.event),
    });
  }

  history(scope: StoreScope, taskId: string, message: Message): void {
    this.ops.push({ ...this.scoped("history", scope, taskId), m: this.blob(toBinary(MessageSchema, message)) });
  }

  status(scope: StoreScope, taskId: string, seq: number, status: TaskStatus, event: StreamResponse): void {
    const rows = statusRows(event, status);
    this.ops.push({
      ...this.scoped("status", scope, taskId),
      seq,
      st: status.state,
      s: this.blob(rows.status),
      sm: statusMs(status),
      m: rows.message ? this.blob(rows.message) : null,
      e: this.blob(rows.event),
      // §3.5.3: after a terminal state the final Task is owed too (what the SQLite outbox decides from the event).
      term: event.payload.case === "statusUpdate" && isTerminal(event.payload.value.status?.state ?? TaskState.UNSPECIFIED),
    });
  }

  artifact(scope: StoreScope, taskId: string, seq: number, change: ArtifactChange, event: StreamResponse): void {
    const rows = artifactRows(event, change.artifact);
    this.ops.push({
      ...this.scoped("artifact", scope, taskId),
      seq,
      aid: change.artifact.artifactId,
      ap: change.append,
      lc: change.lastChunk,
      hd: this.blob(rows.head),
      p: rows.parts.map((p) => this.blob(p)),
      e: this.blob(rows.event),
    });
  }

  sent(scope: StoreScope, sent: SentMessage): void {
    this.ops.push({
      k: "sent",
      t: scope.tenant,
      a: scope.agentId,
      by: sent.key.by,
      key: sent.key.value,
      fp: this.blob(sent.fingerprint),
      tid: sent.taskId ?? null,
      r: sent.reply ? this.blob(toBinary(MessageSchema, sent.reply)) : null,
    });
  }

  pushConfig(scope: StoreScope, config: TaskPushNotificationConfig, version: string): void {
    this.ops.push({
      ...this.scoped("pushcfg", scope, config.taskId),
      cid: config.id,
      c: this.blob(toBinary(TaskPushNotificationConfigSchema, config)),
      v: version,
    });
  }
}
