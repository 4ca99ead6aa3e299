import type Database from "better-sqlite3";
import type { TaskState } from "../../../gen/a2a/v1/a2a_pb.js";

interface Change {
  readonly tenant: string;
  readonly agent: string;
  readonly state: TaskState;
  n: number;
}

/**
 * ListTasks' per (tenant, agent, state) counters (`task_counts`, migration
 * 5), which answer totalSize without counting rows. Triggers kept them until
 * migration 10; now the store does, in the transaction that moves them. Why:
 * a trigger ran an upsert for every task row inserted and every state
 * change, the same counter row over and over for a busy agent (a unit of
 * work under load inserts 15 to 30 task rows); here a transaction's changes
 * are summed first, and each counter is written once.
 *
 * Sound because this connection is the database's only writer, and every
 * change of a task row's state goes through the store's records
 * (task-records.ts), which tell this class what they write.
 */
export class TaskCounts {
  private readonly addStmt: Database.Statement<[tenant: string, agent: string, state: number, n: number]>;
  private readonly changes = new Map<string, Change>();

  constructor(db: Database.Database) {
    this.addStmt = db.prepare(
      `INSERT INTO task_counts (tenant, agent, state, n) VALUES (?, ?, ?, ?)
       ON CONFLICT (tenant, agent, state) DO UPDATE SET n = n + excluded.n`,
    );
  }

  /** A task row of (tenant, agent) now holds `to`; `from` is the state the table held for it, undefined for a row not inserted yet. */
  move(tenant: string, agent: string, from: TaskState | undefined, to: TaskState): void {
    if (from === to) return;
    if (from !== undefined) this.add(tenant, agent, from, -1);
    this.add(tenant, agent, to, 1);
  }

  /** A task row of (tenant, agent) holding `state` was deleted. */
  removed(tenant: string, agent: string, state: TaskState): void {
    this.add(tenant, agent, state, -1);
  }

  /** Writes the summed changes; call inside the transaction that wrote the rows they count. */
  write(): void {
    for (const c of this.changes.values()) if (c.n !== 0) this.addStmt.run(c.tenant, c.agent, c.state, c.n);
    this.changes.clear();
  }

  /** The transaction rolled back: nothing summed so far is to be written. */
  forget(): void {
    this.changes.clear();
  }

  private add(tenant: string, agent: string, state: TaskState, n: number): void {
    const key = `${state}\u0000${tenant}\u0000${agent}`;
    const c = this.changes.get(key);
    if (c) c.n += n;
    else this.changes.set(key, { tenant, agent, state, n });
  }
}
