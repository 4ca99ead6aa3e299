import type Database from "better-sqlite3";
import { StreamResponseSchema, type StreamResponse } from "../../../gen/a2a/v1/a2a_pb.js";
import type { LoggedEvent } from "../task-store.js";
import { decode } from "../encoding/index.js";

/**
 * The `events` table: every event of a task by seq (1, 2, …, the task
 * row's last_seq), the log that subscribers catch up from and webhook
 * deliveries read their payloads from.
 */
export class EventLog {
  private readonly insertStmt: Database.Statement<[number, number, Uint8Array]>;
  private readonly afterStmt: Database.Statement<[number, number], { seq: number; event: Buffer }>;
  private readonly pageStmt: Database.Statement<[number, number, number], { seq: number; event: Buffer }>;
  private readonly atStmt: Database.Statement<[number, number], { event: Buffer }>;

  constructor(db: Database.Database) {
    this.insertStmt = db.prepare(`INSERT INTO events (task_pk, seq, event) VALUES (?, ?, ?)`);
    this.afterStmt = db.prepare(`SELECT seq, event FROM events WHERE task_pk = ? AND seq > ? ORDER BY seq`);
    this.pageStmt = db.prepare(`SELECT seq, event FROM events WHERE task_pk = ? AND seq > ? ORDER BY seq LIMIT ?`);
    this.atStmt = db.prepare(`SELECT event FROM events WHERE task_pk = ? AND seq = ?`);
  }

  /** Stores an encoded StreamResponse as the task's event `seq`. */
  append(pk: number, seq: number, event: Uint8Array): void {
    this.insertStmt.run(pk, seq, event);
  }

  /** Events with seq > afterSeq in order; at most `limit` when given. */
  after(pk: number, afterSeq: number, limit?: number): LoggedEvent[] {
    const rows = limit === undefined ? this.afterStmt.all(pk, afterSeq) : this.pageStmt.all(pk, afterSeq, limit);
    return rows.map((e) => ({ seq: e.seq, event: decode(StreamResponseSchema, e.event) }));
  }

  /** One event, if still stored. */
  at(pk: number, seq: number): StreamResponse | undefined {
    const e = this.atStmt.get(pk, seq);
    return e && decode(StreamResponseSchema, e.event);
  }
}
