import type Database from "better-sqlite3";

/** Where a message goes in a task's history. */
export interface HistoryEntry {
  readonly pk: number;
  /** Its index: the task's history_count before it. */
  readonly idx: number;
  /** The Message, encoded. */
  readonly message: Uint8Array;
}

/**
 * The `history` table: a task's messages by index, one row each. The
 * history kept per task is bounded: the oldest messages make room for new
 * ones (the event log keeps what happened).
 */
export class TaskHistory {
  private readonly insertStmt: Database.Statement<[number, number, Uint8Array]>;
  private readonly trimStmt: Database.Statement<[number, number]>;
  private readonly allStmt: Database.Statement<[number], { message: Buffer }>;
  private readonly lastStmt: Database.Statement<[number, number], { message: Buffer }>;

  constructor(
    db: Database.Database,
    /** Messages kept per task. */
    private readonly maxMessages: number,
  ) {
    this.insertStmt = db.prepare(`INSERT INTO history (task_pk, idx, message) VALUES (?, ?, ?)`);
    this.trimStmt = db.prepare(`DELETE FROM history WHERE task_pk = ? AND idx <= ?`);
    this.allStmt = db.prepare(`SELECT message FROM history WHERE task_pk = ? ORDER BY idx`);
    this.lastStmt = db.prepare(`SELECT message FROM history WHERE task_pk = ? ORDER BY idx DESC LIMIT ?`);
  }

  /** Stores a message at its index and drops what falls out of the bound. */
  add(entry: HistoryEntry): void {
    this.insertStmt.run(entry.pk, entry.idx, entry.message);
    const dropThrough = entry.idx - this.maxMessages;
    if (dropThrough >= 0) this.trimStmt.run(entry.pk, dropThrough);
  }

  /** §3.2.4: undefined = the whole history, 0 = none, n = the n most recent, oldest first; encoded. */
  read(pk: number, historyLength: number | undefined): Uint8Array[] | undefined {
    if (historyLength === undefined) return this.allStmt.all(pk).map((h) => h.message);
    if (historyLength <= 0) return undefined;
    return this.lastStmt
      .all(pk, historyLength)
      .map((h) => h.message)
      .reverse();
  }
}
