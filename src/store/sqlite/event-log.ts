import type Database from "better-sqlite3";
import { StreamResponseSchema, type StreamResponse } from "../../../gen/a2a/v1/a2a_pb.js";
import type { LoggedEvent } from "../task-store.js";
import { decode, PackedRuns, unpackRows, type PackedRun } from "../encoding/index.js";

type EventRow = { seq: number; n: number; event: Buffer };

/**
 * The `events` table: every event of a task by seq (1, 2, …, the task
 * row's last_seq), the log that subscribers catch up from and webhook
 * deliveries read their payloads from.
 *
 * The events a transaction logs for a task are written as one row when
 * it ends (`flush`), packed (encoding/packed-rows.ts): a row holds the `n`
 * events from its `seq` on. Reads see the events not yet written as well,
 * and a transaction that rolls back forgets them (`forget`), as the task
 * records are handled (task-records.ts).
 */
export class EventLog {
  private readonly insertStmt: Database.Statement<[number, number, number, Uint8Array]>;
  private readonly afterStmt: Database.Statement<[{ pk: number; from: number }], EventRow>;
  private readonly atStmt: Database.Statement<[number, number], EventRow>;
  /** Per task: the events logged in the open transaction and not yet written, seqs run.first on. */
  private readonly pending = new PackedRuns<number>();

  constructor(db: Database.Database) {
    this.insertStmt = db.prepare(`INSERT INTO events (task_pk, seq, n, event) VALUES (?, ?, ?, ?)`);
    // From the row that holds seq `from` (the last row starting at or before it) on.
    const fromRow = `SELECT seq, n, event FROM events
      WHERE task_pk = @pk AND seq >= COALESCE((SELECT seq FROM events WHERE task_pk = @pk AND seq <= @from ORDER BY seq DESC LIMIT 1), 0)
      ORDER BY seq`;
    this.afterStmt = db.prepare(fromRow);
    this.atStmt = db.prepare(`SELECT seq, n, event FROM events WHERE task_pk = ? AND seq <= ? ORDER BY seq DESC LIMIT 1`);
  }

  /** Logs an encoded StreamResponse as the task's event `seq`; written by `flush`, inside the same transaction. */
  append(pk: number, seq: number, event: Uint8Array): void {
    let run = this.pending.get(pk);
    if (run && run.first + run.n !== seq) {
      this.write(pk, run);
      this.pending.close(pk);
      run = undefined;
    }
    (run ?? this.pending.start(pk, seq)).add(event);
  }

  /** Writes the events logged in this transaction, a row per task; call inside it. */
  flush(): void {
    if (this.pending.size === 0) return;
    for (const [pk, run] of this.pending.entries()) this.write(pk, run);
    this.pending.closeAll();
  }

  /** The transaction rolled back: the events it logged were never stored. */
  forget(): void {
    this.pending.closeAll();
  }

  /** Events with seq > afterSeq in order; at most `limit` when given. */
  after(pk: number, afterSeq: number, limit?: number): LoggedEvent[] {
    const max = limit ?? Number.POSITIVE_INFINITY;
    const out: LoggedEvent[] = [];
    const run = this.pending.get(pk);
    // Logged in this transaction from before afterSeq on: nothing stored comes after it.
    if (!run || run.first > afterSeq + 1) {
      const params = { pk, from: afterSeq + 1 };
      // A page stops reading rows once it has its events (a row may hold many).
      const rows = limit === undefined ? this.afterStmt.all(params) : this.afterStmt.iterate(params);
      for (const row of rows) if (!take(out, row.seq, unpackRows(row.event, row.n), afterSeq, max)) return out;
    }
    if (run) take(out, run.first, run.rows(), afterSeq, max);
    return out;
  }

  /** One event, if still stored. */
  at(pk: number, seq: number): StreamResponse | undefined {
    const run = this.pending.get(pk);
    if (run && seq >= run.first) {
      const bytes = run.rows()[seq - run.first];
      return bytes && decode(StreamResponseSchema, bytes);
    }
    const row = this.atStmt.get(pk, seq);
    if (!row || seq >= row.seq + row.n) return undefined;
    return decode(StreamResponseSchema, unpackRows(row.event, row.n)[seq - row.seq]!);
  }

  private write(pk: number, run: PackedRun): void {
    this.insertStmt.run(pk, run.first, run.n, run.value());
  }
}

/** Adds the events of a run (the first with seq `first`) past afterSeq, up to `max` in all; false once `max` is reached. */
function take(out: LoggedEvent[], first: number, events: readonly Uint8Array[], afterSeq: number, max: number): boolean {
  for (let i = Math.max(0, afterSeq + 1 - first); i < events.length; i++) {
    if (out.length >= max) return false;
    out.push({ seq: first + i, event: decode(StreamResponseSchema, events[i]!) });
  }
  return out.length < max;
}
