import { create } from "@bufbuild/protobuf";
import { StreamResponseSchema, TaskPushNotificationConfigSchema } from "../../../gen/a2a/v1/a2a_pb.js";
import { decode, deliveryOf, deliveryStateOf, type DeliveryStateRow, type DueDeliveryRow } from "../encoding/index.js";
import type { OutboxStats, PushDelivery, PushDeliveryState, StoreScope } from "../task-store.js";
import { taskColumns, taskOf, type LoadedRow } from "./task-loader.js";

/** How the outbox runs a statement (the store's pool, its errors mapped). */
export type Query = <R>(what: string, text: string, values: unknown[]) => Promise<R[]>;

/** What a delivery row carries: a logged event (0), or the final Task snapshot after a terminal state (1). */
const FINAL_TASK = 1;

interface DueRow extends DueDeliveryRow {
  readonly kind: number;
  readonly task_pk: number;
  readonly event: Buffer | null;
}

// Deliveries leave in order per (task, config): a row waits while an earlier live one of its pair exists.
const DUE = `SELECT o.id, o.seq, o.kind, o.attempts, o.task_pk, t.tenant, t.agent, t.id AS task_id, c.config, c.version,
                    (SELECT e.event FROM events e WHERE e.task_pk = o.task_pk AND e.seq = o.seq) AS event
             FROM push_outbox o
             JOIN tasks t ON t.pk = o.task_pk
             JOIN push_configs c ON c.task_pk = o.task_pk AND c.id = o.config_id
             WHERE NOT o.dead AND o.next_at_ms <= $1::bigint
               AND NOT EXISTS (SELECT 1 FROM push_outbox e WHERE e.task_pk = o.task_pk AND e.config_id = o.config_id AND NOT e.dead AND e.id < o.id)
             ORDER BY o.id LIMIT $2::integer`;

// In a fleet, due rows are claimed for a while by the replica that will post them (SKIP LOCKED: two
// replicas never take the same row); a claim that ran out, or whose replica's lease did (it died),
// is taken again.
const CLAIM_DUE = `WITH picked AS (
    SELECT o.id FROM push_outbox o
    WHERE NOT o.dead AND o.next_at_ms <= $1::bigint
      AND (o.claim_until_ms IS NULL OR o.claim_until_ms < $1::bigint
           OR NOT EXISTS (SELECT 1 FROM replicas r WHERE r.id = o.claimed_by AND r.expires_at > now()))
      AND NOT EXISTS (SELECT 1 FROM push_outbox e WHERE e.task_pk = o.task_pk AND e.config_id = o.config_id AND NOT e.dead AND e.id < o.id)
    ORDER BY o.id LIMIT $2::integer FOR UPDATE SKIP LOCKED),
  claimed AS (UPDATE push_outbox o SET claimed_by = $3, claim_until_ms = $1::bigint + $4::bigint FROM picked WHERE o.id = picked.id
    RETURNING o.id, o.seq, o.kind, o.attempts, o.task_pk, o.config_id)
  SELECT o.id, o.seq, o.kind, o.attempts, o.task_pk, t.tenant, t.agent, t.id AS task_id, c.config, c.version,
         (SELECT e.event FROM events e WHERE e.task_pk = o.task_pk AND e.seq = o.seq) AS event
  FROM claimed o
  JOIN tasks t ON t.pk = o.task_pk
  JOIN push_configs c ON c.task_pk = o.task_pk AND c.id = o.config_id
  ORDER BY o.id`;

const TASK_BY_PK = `SELECT ${taskColumns("t", "$2", true)} FROM tasks t WHERE t.pk = $1`;

// The log counts the delivery in the statement that deletes its outbox row.
const SUCCEEDED = `WITH done AS (DELETE FROM push_outbox WHERE id = $1 RETURNING task_pk, config_id)
  INSERT INTO push_delivery_log (task_pk, config_id, delivered, last_attempt_ms) SELECT task_pk, config_id, 1, $2::bigint FROM done
  ON CONFLICT (task_pk, config_id) DO UPDATE SET delivered = push_delivery_log.delivered + 1, last_attempt_ms = excluded.last_attempt_ms`;

// Retried at $2, or dead when $2 is NULL.
const FAILED = `WITH tried AS (
    UPDATE push_outbox SET attempts = attempts + 1, next_at_ms = COALESCE($2::bigint, next_at_ms), dead = ($2::bigint IS NULL), last_error = $3,
      claimed_by = NULL, claim_until_ms = NULL
    WHERE id = $1 RETURNING task_pk, config_id)
  INSERT INTO push_delivery_log (task_pk, config_id, delivered, last_attempt_ms, last_error) SELECT task_pk, config_id, 0, $4::bigint, $3 FROM tried
  ON CONFLICT (task_pk, config_id) DO UPDATE SET last_attempt_ms = excluded.last_attempt_ms, last_error = excluded.last_error`;

const GONE = `UPDATE push_outbox SET attempts = attempts + 1, dead = true, last_error = 'event no longer stored' WHERE id = $1`;

// A row another replica holds is due here only once its claim runs out.
const NEXT_DUE = `SELECT MIN(GREATEST(next_at_ms, COALESCE(claim_until_ms, 0))) AS at FROM push_outbox WHERE NOT dead`;

const STATS = `SELECT COUNT(*) AS n, MIN(CASE WHEN next_at_ms <= $1::bigint THEN next_at_ms END) AS due FROM push_outbox WHERE NOT dead`;

// Per config of the task, in list order: the log's counters, the outbox rows owed or given up, and the oldest live row's due time.
const STATE = `SELECT c.id AS config_id, c.config, COALESCE(l.delivered, 0) AS delivered, l.last_attempt_ms, l.last_error,
    (SELECT COUNT(*) FROM push_outbox o WHERE o.task_pk = c.task_pk AND o.config_id = c.id AND NOT o.dead) AS pending,
    (SELECT COUNT(*) FROM push_outbox o WHERE o.task_pk = c.task_pk AND o.config_id = c.id AND o.dead) AS dead,
    (SELECT o.next_at_ms FROM push_outbox o WHERE o.task_pk = c.task_pk AND o.config_id = c.id AND NOT o.dead ORDER BY o.id LIMIT 1) AS next_at
  FROM push_configs c JOIN tasks t ON t.pk = c.task_pk
  LEFT JOIN push_delivery_log l ON l.task_pk = c.task_pk AND l.config_id = c.id
  WHERE t.tenant = $1 AND t.agent = $2 AND t.id = $3
  ORDER BY c.created_ms, c.id`;

interface StateRow extends DeliveryStateRow {
  readonly config: Buffer;
  readonly next_at: number | null;
}

/**
 * The push outbox (§3.5.3) on PostgreSQL: rows are written by the unit
 * function in the event's transaction; here they are read when due, settled
 * (each settlement one statement, with the delivery log), and summarised.
 */
/** A fleet's claim on the deliveries a replica takes: who takes them, and for how long. */
export interface OutboxClaim {
  readonly replica: string;
  /** Longer than a webhook POST may take, so that a slow delivery is never taken twice. */
  readonly claimMs: number;
}

export class PostgresPushOutbox {
  constructor(
    private readonly query: Query,
    private readonly claim?: OutboxClaim,
  ) {}

  /** Due deliveries, oldest first, at most one per (task, config); a row whose payload is gone turns dead. */
  async due(nowMs: number, limit: number): Promise<PushDelivery[]> {
    const out: PushDelivery[] = [];
    const rows = this.claim
      ? await this.query<DueRow>("due deliveries", CLAIM_DUE, [nowMs, limit, this.claim.replica, this.claim.claimMs])
      : await this.query<DueRow>("due deliveries", DUE, [nowMs, limit]);
    for (const r of rows) {
      const payload = r.kind === FINAL_TASK ? await this.finalTask(r.task_pk) : r.event && decode(StreamResponseSchema, r.event);
      if (!payload) {
        await this.query("a delivery whose event is gone", GONE, [r.id]);
        continue;
      }
      out.push(deliveryOf(r, payload));
    }
    return out;
  }

  private async finalTask(pk: number) {
    const [row] = await this.query<LoadedRow>("a task for its final delivery", TASK_BY_PK, [pk, null]);
    return row && create(StreamResponseSchema, { payload: { case: "task", value: taskOf(row) } });
  }

  async nextDueAt(): Promise<number | undefined> {
    const [r] = await this.query<{ at: number | null }>("the next due delivery", NEXT_DUE, []);
    return r?.at ?? undefined;
  }

  async succeeded(id: number, nowMs: number): Promise<void> {
    await this.query("a delivery's success", SUCCEEDED, [id, nowMs]);
  }

  /** Retried at `retryAtMs`, or dead when undefined. */
  async failed(id: number, retryAtMs: number | undefined, error: string, nowMs: number): Promise<void> {
    await this.query("a delivery's failure", FAILED, [id, retryAtMs ?? null, error.slice(0, 1000), nowMs]);
  }

  async stats(nowMs: number): Promise<OutboxStats> {
    const [r] = await this.query<{ n: number; due: number | null }>("the outbox stats", STATS, [nowMs]);
    return { pending: r?.n ?? 0, oldestDueMs: r?.due ?? undefined };
  }

  /** One entry per push config of the task, in list order. */
  async deliveryState(scope: StoreScope, taskId: string): Promise<PushDeliveryState[]> {
    const rows = await this.query<StateRow>("push delivery state", STATE, [scope.tenant, scope.agentId, taskId]);
    return rows.map((r) => ({ ...deliveryStateOf(r, r.next_at), url: decode(TaskPushNotificationConfigSchema, r.config).url }));
  }
}
