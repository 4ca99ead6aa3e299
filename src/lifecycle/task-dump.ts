import { createHash } from "node:crypto";

/** One artifact of a task, its parts in order. */
export interface ArtifactDump {
  readonly artifactId: string;
  readonly ord: number;
  readonly head: Uint8Array;
  readonly sealed: boolean;
  readonly parts: readonly Uint8Array[];
}

/** One delivery the push outbox holds (pending or dead). */
export interface OutboxDump {
  readonly configId: string;
  readonly seq: number;
  readonly kind: number;
  readonly attempts: number;
  readonly nextAtMs: number;
  readonly dead: boolean;
  readonly lastError: string | null;
}

/**
 * A task with everything that belongs to it, in the form both stores can
 * give and take: rows, one per event, message and part (SQLite's packed
 * rows unpacked), children in their order. Row keys (pk, outbox ids) are
 * left out: each store gives its own.
 */
export interface TaskDump {
  readonly tenant: string;
  readonly agent: string;
  readonly id: string;
  readonly contextId: string;
  readonly state: number;
  readonly status: Uint8Array;
  readonly statusMs: number;
  /** ListTasks' order among equal status times; a target adds an offset to keep it after its own. */
  readonly touch: number;
  readonly metadata: string | null;
  readonly lastSeq: number;
  readonly historyCount: number;
  readonly artifactCount: number;
  readonly createdMs: number;
  readonly history: ReadonlyArray<{ readonly idx: number; readonly message: Uint8Array }>;
  readonly artifacts: readonly ArtifactDump[];
  readonly events: ReadonlyArray<{ readonly seq: number; readonly event: Uint8Array }>;
  readonly pushConfigs: ReadonlyArray<{ readonly id: string; readonly config: Uint8Array; readonly createdMs: number; readonly version: string }>;
  readonly outbox: readonly OutboxDump[];
  readonly deliveryLog: ReadonlyArray<{ readonly configId: string; readonly delivered: number; readonly lastAttemptMs: number | null; readonly lastError: string | null }>;
}

/** A send-ledger entry (§3.3.1), by messageId or by Idempotency-Key. */
export interface LedgerDump {
  readonly by: "messageId" | "idempotencyKey";
  readonly tenant: string;
  readonly agent: string;
  readonly key: string;
  readonly fingerprint: Uint8Array;
  readonly taskId: string | null;
  readonly reply: Uint8Array | null;
  readonly createdMs: number;
}

/**
 * SHA-256 of everything a task holds but its row keys and touch (which
 * another store numbers its own way), children in order: two stores that
 * give the same digest for a task hold the same task.
 */
export function taskDigest(t: TaskDump): string {
  const h = createHash("sha256");
  const put = (v: string | number | boolean | null | Uint8Array): void => {
    if (v instanceof Uint8Array) {
      h.update(`b${v.length}:`);
      h.update(v);
    } else h.update(`${typeof v}${v === null ? "" : String(v).length}:${String(v)}`);
  };
  for (const v of [t.tenant, t.agent, t.id, t.contextId, t.state, t.status, t.statusMs, t.metadata, t.lastSeq, t.historyCount, t.artifactCount, t.createdMs]) put(v);
  put(t.history.length);
  for (const m of t.history) [m.idx, m.message].forEach(put);
  put(t.artifacts.length);
  for (const a of t.artifacts) {
    [a.artifactId, a.ord, a.head, a.sealed, a.parts.length].forEach(put);
    a.parts.forEach(put);
  }
  put(t.events.length);
  for (const e of t.events) [e.seq, e.event].forEach(put);
  put(t.pushConfigs.length);
  for (const c of t.pushConfigs) [c.id, c.config, c.createdMs, c.version].forEach(put);
  put(t.outbox.length);
  for (const o of t.outbox) [o.configId, o.seq, o.kind, o.attempts, o.nextAtMs, o.dead, o.lastError].forEach(put);
  put(t.deliveryLog.length);
  for (const l of t.deliveryLog) [l.configId, l.delivered, l.lastAttemptMs, l.lastError].forEach(put);
  return h.digest("hex");
}
