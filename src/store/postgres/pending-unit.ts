import { toBinary } from "@bufbuild/protobuf";
import { MessageSchema, TaskPushNotificationConfigSchema, TaskState, type Message, type StreamResponse, type TaskPushNotificationConfig, type TaskStatus } from "../../../gen/a2a/v1/a2a_pb.js";
import { isTerminal } from "../../protocol/index.js";
import { artifactRows, creationRows, encodeMetadata, statusMs, statusRows, type ArtifactPieces, type TaskPieces } from "../encoding/index.js";
import type { ArtifactChange, NewTask, SentMessage, StoreScope } from "../task-store.js";
import { cacheKey, type CachedTask } from "./task-cache.js";

/** A task the unit writes: what its row becomes. */
interface TaskSlot {
  readonly n: number;
  readonly scope: StoreScope;
  readonly id: string;
  readonly isNew: boolean;
  readonly ctx: string | null;
  readonly md: string | null;
  /** The fence: the seq the log must end at before this unit's first event on the task (null: no event, or a new task). */
  prev: number | null;
  first: number | null;
  last: number | null;
  moved: boolean;
  state: number | null;
  status: Buffer | null;
  statusMs: number | null;
  /** Messages the unit adds to its history so far. */
  messages: number;
}

/** The net write of the unit's changes to one artifact (§4.2.2: append false replaces, append adds). */
interface ArtifactSlot {
  readonly j: number;
  readonly n: number;
  readonly id: string;
  /** The seq of the unit's first change to it: orders it among the task's artifacts if it is new. */
  readonly ord: number;
  replace: boolean;
  head: Buffer;
  parts: Buffer[];
  sealed: boolean;
}

interface ConfigSlot {
  readonly n: number;
  readonly id: string;
  /** Where it was first put among the unit's writes: events after it owe it a delivery. */
  readonly pos: number;
  config: Buffer;
  version: string;
}

/** A view, not a copy: the driver hex-encodes it into the statement at once. */
function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The writes of one unit of work, waiting for commitBatch, gathered per
 * table as the unit statement takes them (unit-statement.ts): a task's
 * row once, whatever number of writes it had; an artifact's changes
 * folded into one; and the cached tasks written (held in the cache until
 * the unit settles).
 */
export class PendingUnit {
  readonly touched = new Set<CachedTask>();
  /** Opened by a write outside any unit: the store commits it itself, unless beginBatch() adopted it. */
  ownCommit = false;
  private writes = 0;
  private readonly tasks: TaskSlot[] = [];
  private readonly byKey = new Map<string, TaskSlot>();
  private readonly messages: Array<[n: number, ord: number, message: Buffer]> = [];
  private readonly events: Array<[n: number, seq: number, event: Buffer, terminal: boolean, pos: number | null]> = [];
  private readonly artifacts = new Map<string, ArtifactSlot>();
  private readonly configs = new Map<string, ConfigSlot>();
  private readonly sentRows: Array<[idem: boolean, tenant: string, agent: string, key: string, fingerprint: Buffer, taskId: string | null, reply: Buffer | null]> = [];

  get empty(): boolean {
    return this.writes === 0;
  }

  /** Holds a cached task until the unit settles (one pin per unit). */
  touch(entry: CachedTask): void {
    if (this.touched.has(entry)) return;
    this.touched.add(entry);
    entry.pins++;
  }

  private slot(scope: StoreScope, taskId: string, created?: { ctx: string; md: string | null }): TaskSlot {
    const key = cacheKey(scope, taskId);
    let s = this.byKey.get(key);
    // A create always starts a task of its own: the same id twice must meet the table's unique key.
    if (!s || created) {
      s = {
        n: this.tasks.length + 1,
        scope,
        id: taskId,
        isNew: created !== undefined,
        ctx: created?.ctx ?? null,
        md: created?.md ?? null,
        prev: null,
        first: null,
        last: null,
        moved: false,
        state: null,
        status: null,
        statusMs: null,
        messages: 0,
      };
      this.tasks.push(s);
      this.byKey.set(key, s);
    }
    this.writes++;
    return s;
  }

  private message(s: TaskSlot, bytes: Uint8Array): void {
    this.messages.push([s.n, ++s.messages, view(bytes)]);
  }

  /** Logs an event at `seq`; `pos` null when it owes no delivery (the creation event). */
  private event(s: TaskSlot, seq: number, bytes: Uint8Array, terminal: boolean, pos: number | null): void {
    if (!s.isNew && s.prev === null) s.prev = seq - 1;
    s.first ??= seq;
    s.last = seq;
    this.events.push([s.n, seq, view(bytes), terminal, pos]);
  }

  create(scope: StoreScope, task: NewTask, event: StreamResponse): void {
    const rows = creationRows(event, task.status, task.history);
    const s = this.slot(scope, task.id, { ctx: task.contextId, md: encodeMetadata(task.metadata) });
    s.state = task.status.state;
    s.status = view(rows.status);
    s.statusMs = statusMs(task.status);
    for (const m of rows.history) this.message(s, m);
    // The creation event is the first of the log; no push config can hang off a task created just now.
    this.event(s, 1, rows.event, false, null);
  }

  history(scope: StoreScope, taskId: string, message: Message): void {
    this.message(this.slot(scope, taskId), toBinary(MessageSchema, message));
  }

  status(scope: StoreScope, taskId: string, seq: number, status: TaskStatus, event: StreamResponse): void {
    const rows = statusRows(event, status);
    const s = this.slot(scope, taskId);
    s.moved = true;
    s.state = status.state;
    s.status = view(rows.status);
    s.statusMs = statusMs(status);
    if (rows.message) this.message(s, rows.message);
    // §3.5.3: after a terminal state the final Task is owed too (what the SQLite outbox decides from the event).
    const terminal = event.payload.case === "statusUpdate" && isTerminal(event.payload.value.status?.state ?? TaskState.UNSPECIFIED);
    this.event(s, seq, rows.event, terminal, this.writes);
  }

  artifact(scope: StoreScope, taskId: string, seq: number, change: ArtifactChange, event: StreamResponse): void {
    const rows = artifactRows(event, change.artifact);
    const s = this.slot(scope, taskId);
    const id = change.artifact.artifactId;
    const key = `${s.n}\u0000${id}`;
    const parts = rows.parts.map(view);
    const a = this.artifacts.get(key);
    if (!a) {
      this.artifacts.set(key, { j: this.artifacts.size + 1, n: s.n, id, ord: seq, replace: !change.append, head: view(rows.head), parts, sealed: change.lastChunk });
    } else if (!change.append) {
      a.replace = true;
      a.head = view(rows.head);
      a.parts = parts;
      a.sealed = change.lastChunk;
    } else {
      // An append adds parts and seals, never unseals; the head stays the one first written.
      a.parts.push(...parts);
      a.sealed ||= change.lastChunk;
    }
    this.event(s, seq, rows.event, false, this.writes);
  }

  sent(scope: StoreScope, sent: SentMessage): void {
    this.writes++;
    const reply = sent.reply ? view(toBinary(MessageSchema, sent.reply)) : null;
    this.sentRows.push([sent.key.by === "idempotencyKey", scope.tenant, scope.agentId, sent.key.value, view(sent.fingerprint), sent.taskId ?? null, reply]);
  }

  pushConfig(scope: StoreScope, config: TaskPushNotificationConfig, version: string): void {
    const s = this.slot(scope, config.taskId);
    const key = `${s.n}\u0000${config.id}`;
    const bytes = view(toBinary(TaskPushNotificationConfigSchema, config));
    const c = this.configs.get(key);
    if (c) {
      c.config = bytes;
      c.version = version;
    } else {
      this.configs.set(key, { n: s.n, id: config.id, pos: this.writes, config: bytes, version });
    }
  }

  /**
   * Each task this unit both created and ended, whole: every piece of it
   * is among the unit's writes, as the unit statement stores them (history
   * trimmed to the newest `maxHistory`, artifacts in order of their first
   * change), keyed as the cache keys it.
   */
  settledTasks(maxHistory: number | null): Array<[key: string, pieces: TaskPieces]> {
    const ended = new Map<number, { s: TaskSlot; history: Buffer[]; artifacts: ArtifactPieces[] }>();
    for (const s of this.tasks) if (s.isNew && s.state !== null && isTerminal(s.state)) ended.set(s.n, { s, history: [], artifacts: [] });
    if (ended.size === 0) return [];
    for (const [n, , m] of this.messages) ended.get(n)?.history.push(m);
    for (const a of this.artifacts.values()) ended.get(a.n)?.artifacts.push({ head: a.head, parts: a.parts });
    return [...ended.values()].map(({ s, history, artifacts }) => {
      const kept = maxHistory === null ? history : history.slice(Math.max(0, history.length - maxHistory));
      const pieces = { id: s.id, contextId: s.ctx!, status: s.status!, metadata: s.md, history: kept.length ? kept : undefined, artifacts: artifacts.length ? artifacts : undefined };
      return [cacheKey(s.scope, s.id), pieces];
    });
  }

  /** The unit statement's parameters (unit-statement.ts). */
  values(nowMs: number, maxHistory: number | null, replica: string | null): unknown[] {
    const t = this.tasks;
    const wake = (s: TaskSlot) =>
      replica !== null && s.first !== null ? JSON.stringify({ t: s.scope.tenant, a: s.scope.agentId, id: s.id, f: s.first, l: s.last, r: replica }) : null;
    const arts = [...this.artifacts.values()];
    const parts: Array<[j: number, ord: number, part: Buffer]> = [];
    for (const a of arts) a.parts.forEach((p, i) => parts.push([a.j, i + 1, p]));
    const configs = [...this.configs.values()];
    return [
      nowMs,
      maxHistory,
      replica,
      t.map((s) => s.scope.tenant),
      t.map((s) => s.scope.agentId),
      t.map((s) => s.id),
      t.map((s) => s.isNew),
      t.map((s) => s.ctx),
      t.map((s) => s.md),
      t.map((s) => s.prev),
      t.map((s) => s.last),
      t.map((s) => s.moved),
      t.map((s) => s.state),
      t.map((s) => s.status),
      t.map((s) => s.statusMs),
      t.map(wake),
      ...columns(this.messages, 3),
      ...columns(this.events, 5),
      arts.map((a) => a.n),
      arts.map((a) => a.id),
      arts.map((a) => a.replace),
      arts.map((a) => a.ord),
      arts.map((a) => a.head),
      arts.map((a) => a.parts.length),
      arts.map((a) => a.sealed),
      ...columns(parts, 3),
      ...columns(this.sentRows, 7),
      configs.map((c) => c.n),
      configs.map((c) => c.id),
      configs.map((c) => c.config),
      configs.map((c) => c.version),
      configs.map((c) => c.pos),
    ];
  }
}

/** Rows to one array per column. */
function columns(rows: ReadonlyArray<readonly unknown[]>, width: number): unknown[][] {
  const out: unknown[][] = Array.from({ length: width }, () => []);
  for (const r of rows) for (let i = 0; i < width; i++) out[i]!.push(r[i]);
  return out;
}
