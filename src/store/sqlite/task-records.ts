import type { TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import { isTerminal } from "../../protocol/index.js";
import type { StoreScope } from "../task-store.js";
import type { ArtifactHead } from "./artifacts.js";
import { HeldChildren, type ArtifactRowsChange } from "./held-children.js";
import { RecencyMap } from "./recency-map.js";
import type { TaskCounts } from "./task-counts.js";
import { type FullTaskRow, type NewTaskRow, type TaskRows } from "./task-rows.js";

/** What a record holds that the table does not have yet. */
export const enum Pending {
  None = 0,
  Counters = 1,
  /** The status columns too (state, status, status_ms, touch): three indexes and the state counters move. */
  Status = 2,
  /** The whole row: the task was created in this transaction. */
  Row = 3,
}

/** A task row as the store holds it: the values as they stand in the open transaction (createdMs is used only by a row still to insert). */
export interface TaskRecord extends NewTaskRow {
  state: TaskState;
  /** The state the table (and its counters, task-counts.ts) holds for the task; undefined until its row is inserted. */
  storedState: TaskState | undefined;
  status: Uint8Array;
  statusMs: number;
  touch: number;
  lastSeq: number;
  historyCount: number;
  artifactCount: number;
  /** False only when the task is known to have no push config: its events then owe no webhook. */
  mayPush: boolean;
  pending: Pending;
  /** Its artifacts' heads once read (or since it was created): appends need no read (artifacts.ts). */
  heads?: Map<string, ArtifactHead>;
  /** Its history and artifact rows, when this process created the task and they fit the bound (held-children.ts). */
  held?: HeldChildren;
}

/** A new status of a task, encoded, with its place in ListTasks' order. */
export interface StatusValues {
  readonly state: TaskState;
  readonly bytes: Uint8Array;
  readonly statusMs: number;
  readonly touch: number;
}

/** What one write changed in a task row. */
export interface RecordChange {
  readonly status?: StatusValues;
  readonly lastSeq?: number;
  readonly historyCount?: number;
  readonly artifactCount?: number;
  /** The message the write added to the history, encoded. */
  readonly message?: Uint8Array;
  /** The artifact change the write stored. */
  readonly artifact?: ArtifactRowsChange;
}

/** How many task rows are held, and how many bytes of status, metadata and held children at most. */
export interface RecordLimits {
  readonly maxRecords: number;
  readonly maxBytes: number;
  /** The history bound the store keeps (history.ts), which held children follow. */
  readonly maxHistoryMessages: number;
}

/**
 * The bounds are counted bytes, but a held record costs the heap several
 * times its count (objects, maps, strings), and all of it lives long enough
 * to reach V8's old space, which then grows to a multiple of what is live
 * (10,000 against 1,000 records: docs/performance-notes.md). A thousand
 * recent tasks still hold everything in flight (never dropped until
 * written) and what clients read back soon after.
 */
export const RECORD_LIMITS: RecordLimits = { maxRecords: 1_000, maxBytes: 8 * 1024 * 1024, maxHistoryMessages: Number.POSITIVE_INFINITY };

/**
 * Records of tasks in a terminal state are held apart, and only this many.
 * Such a task is rarely written again (§3.1.5: nothing changes it but its
 * push configs), and what a client reads back soon after its answer is
 * among the last few settled. Why apart: under a load of short tasks, a
 * thousand records are a few hundred milliseconds of traffic, long enough
 * for every record to be promoted to V8's old generation and die there,
 * copied twice on the way by the young-generation collections
 * (docs/performance-notes.md).
 */
export const SETTLED_RECORDS = 64;

/** One task's children may take this share of the bytes at most; a bigger task is read from its rows. */
const HELD_SHARE = 32;

function keyOf(tenant: string, agent: string, id: string): string {
  return `${tenant}\u0000${agent}\u0000${id}`;
}

/** What one kept artifact head is counted as against maxBytes (its id, two numbers and the map entry). */
const HEAD_BYTES = 96;

function sizeOf(r: TaskRecord): number {
  return r.status.length + (r.metadata?.length ?? 0) + (r.heads?.size ?? 0) * HEAD_BYTES + (r.held?.bytes ?? 0);
}

/**
 * The task rows of recently used tasks, held in memory. A SendMessage
 * writes its task's row four times in one turn (created, WORKING, an
 * artifact, COMPLETED) and then reads it back twice; each change used to be
 * an INSERT or an UPDATE that moved three index entries and fired the
 * state-count trigger, and each read a SELECT. Here a change only changes
 * the record; `flush` writes every changed row once (a task created in the
 * transaction is inserted as it ends up), in the same transaction as the
 * events and children that were written at once (so a crash never sees one
 * without the other), and reads are answered from the record.
 *
 * Sound because this connection is the database's only writer (the touch
 * counter already relies on it; rowids of new tasks are given here; a hub
 * holds its data directory's lock, data-dir-lock.ts, before it opens it) and
 * because the records are dropped whenever a transaction rolls back. A
 * record changes only after every statement of its write succeeded, so a
 * write that fails inside a batch (its savepoint rolled back) leaves the
 * record as it was. One failure moves: a task id already taken in its
 * scope is refused when the row is inserted, at the end of the transaction,
 * which then rolls back whole; ids of new tasks are server-made UUIDs, so
 * that is a bug, not a client's doing.
 */
export class TaskRecords {
  /** Least recently used first: records of tasks not in a terminal state, and of any not yet written. */
  private readonly byKey = new RecencyMap<TaskRecord>();
  /** Least recently used first: written records of tasks in a terminal state, SETTLED_RECORDS at most, outside maxRecords and maxBytes. */
  private readonly settled = new RecencyMap<TaskRecord>();
  private readonly dirty = new Set<TaskRecord>();
  private bytes = 0;
  /** The rowid the next new task gets; read from the table when unknown. */
  private nextPk: number | undefined;

  constructor(
    private readonly rows: TaskRows,
    private readonly counts: TaskCounts,
    private readonly limits: RecordLimits = RECORD_LIMITS,
  ) {}

  /** The record of a task, read from the table on first use; undefined when no such task exists. */
  find(scope: StoreScope, taskId: string): TaskRecord | undefined {
    const key = keyOf(scope.tenant, scope.agentId, taskId);
    const held = this.byKey.use(key) ?? this.settled.use(key);
    if (held) return held;
    const row = this.rows.byKey(scope, taskId);
    return row && this.hold(key, fromRow(row));
  }

  /** The record of a task that must exist (writes only follow a successful lookup). */
  get(scope: StoreScope, taskId: string): TaskRecord {
    const r = this.find(scope, taskId);
    if (!r) throw new Error(`store: task ${taskId} not found in scope ${scope.tenant}/${scope.agentId}`);
    return r;
  }

  /** The rowid of a new task: its children are written under it before its row is. */
  newPk(): number {
    this.nextPk ??= this.rows.maxPk() + 1;
    return this.nextPk++;
  }

  /** Holds the record of a new task, and its first history messages (encoded); its row is inserted by `flush`. */
  created(row: Omit<TaskRecord, "pending" | "held" | "storedState">, history: readonly Uint8Array[]): void {
    const held = new HeldChildren(this.limits.maxHistoryMessages);
    for (const m of history) held.addMessage(m);
    const record = recordOf(row, undefined, Pending.Row, this.fits(held) ? held : undefined);
    this.hold(keyOf(row.tenant, row.agent, row.id), record);
    this.dirty.add(record);
  }

  /** Applies a write's changes to its record, once every statement of the write succeeded; `flush` writes them. */
  apply(record: TaskRecord, change: RecordChange): void {
    let pending = Pending.Counters;
    this.bytes -= sizeOf(record);
    if (record.held) {
      if (change.message) record.held.addMessage(change.message);
      if (change.artifact) record.held.applyArtifact(change.artifact);
      if (!this.fits(record.held)) record.held = undefined;
    }
    if (change.status) {
      record.state = change.status.state;
      record.status = change.status.bytes;
      record.statusMs = change.status.statusMs;
      record.touch = change.status.touch;
      pending = Pending.Status;
    }
    if (change.lastSeq !== undefined) record.lastSeq = change.lastSeq;
    if (change.historyCount !== undefined) record.historyCount = change.historyCount;
    if (change.artifactCount !== undefined) record.artifactCount = change.artifactCount;
    if (pending > record.pending) record.pending = pending;
    this.bytes += sizeOf(record);
    this.dirty.add(record);
  }

  /** A task's row was deleted (retention): its record, if held, goes too, so the next lookup finds no task. */
  dropped(scope: StoreScope, taskId: string): void {
    const key = keyOf(scope.tenant, scope.agentId, taskId);
    this.release(key);
    this.settled.delete(key);
  }

  /** Whether a record holds changes not yet written (the open transaction's). */
  get writing(): boolean {
    return this.dirty.size > 0;
  }

  /** Changes what a record keeps in memory beside its row (its artifact heads), counted against maxBytes like the rest. */
  resize(record: TaskRecord, change: () => void): void {
    const held = this.byKey.peek(keyOf(record.tenant, record.agent, record.id)) === record;
    if (held) this.bytes -= sizeOf(record);
    change();
    if (held) this.bytes += sizeOf(record);
  }

  /** Writes every changed row, each once, and the state counters they move; call inside the transaction that made the changes. */
  flush(): void {
    if (this.dirty.size === 0) return;
    for (const r of this.dirty) {
      if (r.pending === Pending.Row) this.rows.insert(r);
      else this.rows.update(r.pk, r, r.pending === Pending.Status);
      this.counts.move(r.tenant, r.agent, r.storedState, r.state);
      r.storedState = r.state;
      r.pending = Pending.None;
      if (isTerminal(r.state)) this.settle(keyOf(r.tenant, r.agent, r.id), r);
    }
    this.counts.write();
    this.dirty.clear();
    this.trim();
  }

  /** Holds a written record of a task in a terminal state with the settled records (out of byKey, if it was there). */
  private settle(key: string, r: TaskRecord): void {
    this.release(key);
    this.settled.set(key, r);
    this.trimSettled();
  }

  /** Drops the record byKey holds under `key`, if any, and its bytes. */
  private release(key: string): void {
    const before = this.byKey.peek(key);
    if (!before) return;
    this.byKey.delete(key);
    this.bytes -= sizeOf(before);
  }

  /** Drops the least recently used settled records beyond SETTLED_RECORDS; one not yet written stays until it is. */
  private trimSettled(): void {
    while (this.settled.size > SETTLED_RECORDS && this.settled.oldestValue()?.pending === Pending.None) this.settled.dropOldest();
  }

  /** The transaction rolled back: no record can be trusted, and rowids may be handed out again. */
  forget(): void {
    this.counts.forget();
    this.byKey.clear();
    this.settled.clear();
    this.dirty.clear();
    this.bytes = 0;
    this.nextPk = undefined;
  }

  private fits(held: HeldChildren): boolean {
    return held.bytes <= this.limits.maxBytes / HELD_SHARE;
  }

  private hold(key: string, record: TaskRecord): TaskRecord {
    // A task read back from its row that is already settled goes with the settled records.
    if (record.pending === Pending.None && isTerminal(record.state)) {
      this.settle(key, record);
      return record;
    }
    this.settled.delete(key);
    this.release(key);
    this.byKey.set(key, record);
    this.bytes += sizeOf(record);
    this.trim();
    return record;
  }

  /** Drops the least recently used records beyond the limits; a record not yet written stays until it is. */
  private trim(): void {
    while (this.byKey.size > this.limits.maxRecords || this.bytes > this.limits.maxBytes) {
      const r = this.byKey.oldestValue();
      if (!r || r.pending !== Pending.None) return;
      this.byKey.dropOldest();
      this.bytes -= sizeOf(r);
    }
  }
}

function fromRow(row: FullTaskRow): TaskRecord {
  const values = {
    pk: row.pk,
    tenant: row.tenant,
    agent: row.agent,
    id: row.id,
    contextId: row.context_id,
    metadata: row.metadata,
    createdMs: 0,
    state: row.state as TaskState,
    status: row.status,
    statusMs: row.status_ms,
    touch: row.touch,
    lastSeq: row.last_seq,
    historyCount: row.history_count,
    artifactCount: row.artifact_count,
    mayPush: row.has_push === 1,
  };
  return recordOf(values, row.state as TaskState, Pending.None, undefined);
}

/**
 * A record, its properties written out in one order. Why not a spread of
 * the row: V8 gave every object a spread made here a hidden class of its
 * own (a heap snapshot under SendMessage load: 1,000 held records, 1,000
 * maps, each with its descriptors, all in the old generation), so every
 * property read of a record met a new shape and its accesses went
 * megamorphic. A literal with fixed keys shares one.
 */
function recordOf(row: Omit<TaskRecord, "pending" | "held" | "storedState" | "heads">, storedState: TaskState | undefined, pending: Pending, held: HeldChildren | undefined): TaskRecord {
  return {
    pk: row.pk,
    tenant: row.tenant,
    agent: row.agent,
    id: row.id,
    contextId: row.contextId,
    metadata: row.metadata,
    createdMs: row.createdMs,
    state: row.state,
    storedState,
    status: row.status,
    statusMs: row.statusMs,
    touch: row.touch,
    lastSeq: row.lastSeq,
    historyCount: row.historyCount,
    artifactCount: row.artifactCount,
    mayPush: row.mayPush,
    pending,
    heads: undefined,
    held,
  };
}
