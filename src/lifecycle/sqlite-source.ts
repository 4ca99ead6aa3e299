import Database from "better-sqlite3";
import { unpackRows } from "../store/index.js";
import { emptyChildren, ordered, type ChildRows } from "./dump-order.js";
import type { LedgerDump, TaskDump } from "./task-dump.js";

type TaskRow = {
  pk: number; tenant: string; agent: string; id: string; context_id: string; state: number; status: Buffer; status_ms: number; touch: number;
  metadata: string | null; last_seq: number; history_count: number; artifact_count: number; created_ms: number;
};
type Range = [first: number, last: number];

/**
 * A SQLite data directory's database read as task dumps, in rowid order, a
 * batch at a time (children read by rowid range: a statement per table per
 * batch). Opened read-only; the caller holds the directory's lock, so no
 * hub writes it meanwhile.
 */
export class SqliteSource {
  private readonly db: Database.Database;
  private readonly tasks: Database.Statement<[after: number, limit: number], TaskRow>;
  private readonly children: { [K in keyof ChildRows]: Database.Statement<Range, any> };

  constructor(file: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    this.tasks = this.db.prepare(`SELECT pk, tenant, agent, id, context_id, state, status, status_ms, touch, metadata, last_seq, history_count, artifact_count, created_ms
                                  FROM tasks WHERE pk > ? ORDER BY pk LIMIT ?`);
    const range = "task_pk BETWEEN ? AND ?";
    this.children = {
      history: this.db.prepare(`SELECT task_pk, idx, message FROM history WHERE ${range}`),
      artifacts: this.db.prepare(`SELECT task_pk, artifact_id, ord, head, sealed FROM artifacts WHERE ${range}`),
      events: this.db.prepare(`SELECT task_pk, seq, n, event FROM events WHERE ${range}`),
      pushConfigs: this.db.prepare(`SELECT task_pk, id, config, created_ms, version FROM push_configs WHERE ${range}`),
      outbox: this.db.prepare(`SELECT id, task_pk, config_id, seq, kind, attempts, next_at_ms, dead, last_error FROM push_outbox WHERE ${range}`),
      deliveryLog: this.db.prepare(`SELECT task_pk, config_id, delivered, last_attempt_ms, last_error FROM push_delivery_log WHERE ${range}`),
    };
  }

  /** Rows per table, for the report and the count check. */
  count(table: string): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  }

  /** Up to `limit` tasks with rowid above `after`, in rowid order, with their rowids. */
  batch(after: number, limit: number): Array<{ pk: number; task: TaskDump }> {
    const rows = this.tasks.all(after, limit);
    if (rows.length === 0) return [];
    const range: Range = [rows[0]!.pk, rows[rows.length - 1]!.pk];
    const kids = new Map<number, ChildRows>(rows.map((r) => [r.pk, emptyChildren()]));
    const of = (pk: number): ChildRows => kids.get(pk)!;
    for (const r of this.children.history.all(...range)) of(r.task_pk).history.push({ idx: r.idx, message: r.message });
    for (const r of this.children.artifacts.all(...range)) of(r.task_pk).artifacts.set(r.artifact_id, { ord: r.ord, head: r.head, sealed: r.sealed === 1, parts: [] });
    // Parts are packed: a row holds the n parts from its idx on (encoding/packed-rows.ts).
    const parts = this.db.prepare(`SELECT task_pk, artifact_id, idx, n, part FROM artifact_parts WHERE task_pk BETWEEN ? AND ?`);
    for (const r of parts.all(...range) as Array<{ task_pk: number; artifact_id: string; idx: number; n: number; part: Buffer }>) {
      const a = of(r.task_pk).artifacts.get(r.artifact_id);
      unpackRows(r.part, r.n).forEach((part, i) => a?.parts.push({ idx: r.idx + i, part }));
    }
    for (const r of this.children.events.all(...range)) unpackRows(r.event, r.n).forEach((event, i) => of(r.task_pk).events.push({ seq: r.seq + i, event }));
    for (const r of this.children.pushConfigs.all(...range)) of(r.task_pk).pushConfigs.push({ id: r.id, config: r.config, createdMs: r.created_ms, version: r.version });
    for (const r of this.children.outbox.all(...range)) {
      of(r.task_pk).outbox.push({ rowId: r.id, configId: r.config_id, seq: r.seq, kind: r.kind, attempts: r.attempts, nextAtMs: r.next_at_ms, dead: r.dead === 1, lastError: r.last_error });
    }
    for (const r of this.children.deliveryLog.all(...range)) {
      of(r.task_pk).deliveryLog.push({ configId: r.config_id, delivered: r.delivered, lastAttemptMs: r.last_attempt_ms, lastError: r.last_error });
    }
    return rows.map((r) => ({
      pk: r.pk,
      task: ordered(
        {
          tenant: r.tenant, agent: r.agent, id: r.id, contextId: r.context_id, state: r.state, status: r.status, statusMs: r.status_ms, touch: r.touch,
          metadata: r.metadata, lastSeq: r.last_seq, historyCount: r.history_count, artifactCount: r.artifact_count, createdMs: r.created_ms,
        },
        of(r.pk),
      ),
    }));
  }

  /** Every send-ledger entry, a batch at a time in key order. */
  *ledger(batch: number): Generator<LedgerDump[]> {
    for (const [by, table, keyColumn] of [["messageId", "sent_messages", "message_id"], ["idempotencyKey", "idempotency_keys", "idem_key"]] as const) {
      const stmt = this.db.prepare(`SELECT tenant, agent, ${keyColumn} AS key, fingerprint, task_id, reply, created_ms FROM ${table} ORDER BY tenant, agent, ${keyColumn}`);
      let out: LedgerDump[] = [];
      for (const r of stmt.iterate() as Iterable<{ tenant: string; agent: string; key: string; fingerprint: Buffer; task_id: string | null; reply: Buffer | null; created_ms: number }>) {
        out.push({ by, tenant: r.tenant, agent: r.agent, key: r.key, fingerprint: r.fingerprint, taskId: r.task_id, reply: r.reply, createdMs: r.created_ms });
        if (out.length >= batch) {
          yield out;
          out = [];
        }
      }
      if (out.length > 0) yield out;
    }
  }

  close(): void {
    this.db.close();
  }
}
