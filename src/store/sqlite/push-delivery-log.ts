import type Database from "better-sqlite3";
import { deliveryStateOf, type DeliveryStateRow } from "../encoding/index.js";
import type { PushDeliveryState } from "../task-store.js";

/** What the log and the outbox know of one (task, config): its delivery state but for the URL, which the config holds. */
export type ConfigDeliveryRow = Omit<PushDeliveryState, "url">;


/**
 * The `push_delivery_log` table: per (task, config), how many deliveries
 * succeeded (their outbox rows are deleted, so nothing else remembers them)
 * and the last attempt with its last error. Written in the transaction that
 * settles the outbox row, read beside the outbox's pending and dead rows.
 */
export class PushDeliveryLog {
  private readonly succeededStmt: Database.Statement<[nowMs: number, outboxId: number]>;
  private readonly failedStmt: Database.Statement<[nowMs: number, error: string, outboxId: number]>;
  private readonly dropStmt: Database.Statement<[number, string]>;
  private readonly readStmt: Database.Statement<[number, number], DeliveryStateRow>;
  private readonly headStmt: Database.Statement<[number], { config_id: string; next_at_ms: number }>;

  constructor(db: Database.Database) {
    this.succeededStmt = db.prepare(`INSERT INTO push_delivery_log (task_pk, config_id, delivered, last_attempt_ms)
                                     SELECT task_pk, config_id, 1, ? FROM push_outbox WHERE id = ?
                                     ON CONFLICT (task_pk, config_id) DO UPDATE SET delivered = delivered + 1, last_attempt_ms = excluded.last_attempt_ms`);
    this.failedStmt = db.prepare(`INSERT INTO push_delivery_log (task_pk, config_id, delivered, last_attempt_ms, last_error)
                                  SELECT task_pk, config_id, 0, ?, ? FROM push_outbox WHERE id = ?
                                  ON CONFLICT (task_pk, config_id) DO UPDATE SET last_attempt_ms = excluded.last_attempt_ms, last_error = excluded.last_error`);
    this.dropStmt = db.prepare(`DELETE FROM push_delivery_log WHERE task_pk = ? AND config_id = ?`);
    // Both sides per config: the log's counters and the outbox rows still owed or given up.
    this.readStmt = db.prepare(`SELECT config_id,
                                       SUM(pending) AS pending, SUM(dead) AS dead, SUM(delivered) AS delivered,
                                       MAX(last_attempt_ms) AS last_attempt_ms, MAX(last_error) AS last_error
                                FROM (
                                  SELECT config_id, 0 AS pending, 0 AS dead, delivered, last_attempt_ms, last_error
                                    FROM push_delivery_log WHERE task_pk = ?
                                  UNION ALL
                                  SELECT config_id, dead = 0, dead, 0, NULL, NULL
                                    FROM push_outbox WHERE task_pk = ?
                                )
                                GROUP BY config_id`);
    // Deliveries leave in order per config: the next attempt is the oldest pending row's, not the earliest due time.
    this.headStmt = db.prepare(`SELECT o.config_id, o.next_at_ms FROM push_outbox o WHERE o.task_pk = ? AND o.dead = 0
                                AND o.id = (SELECT MIN(e.id) FROM push_outbox e WHERE e.task_pk = o.task_pk AND e.config_id = o.config_id AND e.dead = 0)`);
  }

  /** Call before the outbox row is deleted: it names the (task, config). */
  succeeded(outboxId: number, nowMs: number): void {
    this.succeededStmt.run(nowMs, outboxId);
  }

  failed(outboxId: number, nowMs: number, error: string): void {
    this.failedStmt.run(nowMs, error, outboxId);
  }

  /** A deleted config leaves nothing behind. */
  dropConfig(pk: number, configId: string): void {
    this.dropStmt.run(pk, configId);
  }

  /** The delivery state of every config of a task that has any, by config id. */
  read(pk: number): Map<string, ConfigDeliveryRow> {
    const out = new Map<string, ConfigDeliveryRow>();
    const next = new Map(this.headStmt.all(pk).map((h) => [h.config_id, h.next_at_ms]));
    for (const r of this.readStmt.all(pk, pk)) {
      const nextAt = next.get(r.config_id);
      out.set(r.config_id, deliveryStateOf(r, nextAt));
    }
    return out;
  }
}
