import type Database from "better-sqlite3";
import { create } from "@bufbuild/protobuf";
import { StreamResponseSchema, TaskState, type StreamResponse, type Task } from "../../../gen/a2a/v1/a2a_pb.js";
import { isTerminal } from "../../protocol/index.js";
import type { OutboxStats, PushDelivery } from "../task-store.js";
import { deliveryOf, expectRow } from "../encoding/index.js";

/** What a delivery row carries: a logged event, or the final Task snapshot after a terminal state. */
const enum Kind {
  Event = 0,
  FinalTask = 1,
}

interface DueRow {
  id: number;
  seq: number;
  kind: Kind;
  attempts: number;
  task_pk: number;
  tenant: string;
  agent: string;
  task_id: string;
  config: Buffer;
  version: string;
}

/** Where the outbox reads the payloads its rows point at. */
export interface OutboxSources {
  /** A logged event of a task, if still stored. */
  readonly eventAt: (pk: number, seq: number) => StreamResponse | undefined;
  /** A task as it stands, by rowid. */
  readonly taskAt: (pk: number) => Task | undefined;
}

/**
 * The push outbox (§3.5.3): one row per (event, config) written in the
 * event's own transaction, so a webhook is owed exactly when the event is
 * stored; the payload stays in the event log. Deliveries leave in order
 * per (task, config), and the worker is told after a commit that queued some.
 */
export class PushOutbox {
  private readonly enqueueStmt: Database.Statement<[seq: number, kind: Kind, nextAtMs: number, pk: number]>;
  private readonly dropConfigStmt: Database.Statement<[number, string]>;
  private readonly dueStmt: Database.Statement<[nowMs: number, limit: number], DueRow>;
  private readonly nextDueStmt: Database.Statement<[], { at: number | null }>;
  private readonly doneStmt: Database.Statement<[number]>;
  private readonly retryStmt: Database.Statement<[retryAtMs: number, error: string, id: number]>;
  private readonly deadStmt: Database.Statement<[error: string, id: number]>;
  /** Prepared on first use: only a hub that serves metrics asks. */
  private statsStmt: Database.Statement<[number], { n: number; due: number | null }> | undefined;
  /** Set when the open transaction queued deliveries; announced once it commits. */
  private queued = false;

  constructor(
    private readonly db: Database.Database,
    private readonly sources: OutboxSources,
  ) {
    this.enqueueStmt = db.prepare(
      `INSERT INTO push_outbox (task_pk, config_id, seq, kind, next_at_ms) SELECT task_pk, id, ?, ?, ? FROM push_configs WHERE task_pk = ?`,
    );
    this.dropConfigStmt = db.prepare(`DELETE FROM push_outbox WHERE task_pk = ? AND config_id = ?`);
    this.dueStmt = db.prepare(`SELECT o.id, o.seq, o.kind, o.attempts, o.task_pk, t.tenant, t.agent, t.id AS task_id, c.config, c.version
              FROM push_outbox o
              JOIN tasks t ON t.pk = o.task_pk
              JOIN push_configs c ON c.task_pk = o.task_pk AND c.id = o.config_id
              WHERE o.dead = 0 AND o.next_at_ms <= ?
                AND NOT EXISTS (SELECT 1 FROM push_outbox e WHERE e.task_pk = o.task_pk AND e.config_id = o.config_id AND e.dead = 0 AND e.id < o.id)
              ORDER BY o.id LIMIT ?`);
    this.nextDueStmt = db.prepare(`SELECT MIN(next_at_ms) AS at FROM push_outbox WHERE dead = 0`);
    this.doneStmt = db.prepare(`DELETE FROM push_outbox WHERE id = ?`);
    this.retryStmt = db.prepare(`UPDATE push_outbox SET attempts = attempts + 1, next_at_ms = ?, last_error = ? WHERE id = ?`);
    this.deadStmt = db.prepare(`UPDATE push_outbox SET attempts = attempts + 1, dead = 1, last_error = ? WHERE id = ?`);
  }

  /** Owes every config of the task this event, and after a terminal state the final Task too. */
  enqueue(pk: number, seq: number, event: StreamResponse): void {
    const now = Date.now();
    if (this.enqueueStmt.run(seq, Kind.Event, now, pk).changes === 0) return;
    this.queued = true;
    const p = event.payload;
    if (p.case === "statusUpdate" && isTerminal(p.value.status?.state ?? TaskState.UNSPECIFIED)) {
      this.enqueueStmt.run(seq, Kind.FinalTask, now, pk);
    }
  }

  /** Whether the transaction that just committed queued deliveries (and forgets it). */
  takeQueued(): boolean {
    const queued = this.queued;
    this.queued = false;
    return queued;
  }

  /** The transaction rolled back: what it queued is gone. */
  forgetQueued(): void {
    this.queued = false;
  }

  /** A deleted config is owed nothing more. */
  dropConfig(pk: number, configId: string): void {
    this.dropConfigStmt.run(pk, configId);
  }

  /** Due deliveries, oldest first, at most one per (task, config); a row whose payload is gone turns dead. */
  due(nowMs: number, limit: number): PushDelivery[] {
    const out: PushDelivery[] = [];
    for (const r of this.dueStmt.all(nowMs, limit)) {
      const payload = r.kind === Kind.FinalTask ? this.finalTask(r.task_pk) : this.sources.eventAt(r.task_pk, r.seq);
      if (!payload) {
        this.deadStmt.run("event no longer stored", r.id);
        continue;
      }
      out.push(deliveryOf(r, payload));
    }
    return out;
  }

  private finalTask(pk: number): StreamResponse | undefined {
    const task = this.sources.taskAt(pk);
    return task && create(StreamResponseSchema, { payload: { case: "task", value: task } });
  }

  nextDueAt(): number | undefined {
    return expectRow(this.nextDueStmt.get(), "the next due time").at ?? undefined;
  }

  succeeded(id: number): void {
    this.doneStmt.run(id);
  }

  /** Retried at `retryAtMs`, or dead when undefined. */
  failed(id: number, retryAtMs: number | undefined, error: string): void {
    if (retryAtMs === undefined) this.deadStmt.run(error.slice(0, 1000), id);
    else this.retryStmt.run(retryAtMs, error.slice(0, 1000), id);
  }

  stats(nowMs: number): OutboxStats {
    this.statsStmt ??= this.db.prepare(`SELECT COUNT(*) AS n, MIN(CASE WHEN next_at_ms <= ? THEN next_at_ms END) AS due FROM push_outbox WHERE dead = 0`);
    const r = expectRow(this.statsStmt.get(nowMs), "the outbox stats");
    return { pending: r.n, oldestDueMs: r.due ?? undefined };
  }
}
