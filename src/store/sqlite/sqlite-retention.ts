import type Database from "better-sqlite3";
import { statSync } from "node:fs";
import type { TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import { INTERRUPTED_STATES, TERMINAL_STATES } from "../../protocol/index.js";
import type { StoreScope } from "../task-store.js";
import type { RetentionCutoffs, StoragePart, TaskRetention } from "../task-retention.js";
import { TaskCounts } from "./task-counts.js";

/** What the retention needs of the store around it. */
export interface RetentionHost {
  /** The database file ("" in memory). */
  readonly filename: string;
  /** Whether a unit of work is open or holds changes not yet written: the sweep then waits for its next turn. */
  busy(): boolean;
  /** A task's row is gone: the store's in-memory record of it must go too. */
  dropped(scope: StoreScope, taskId: string): void;
}

type Row = { pk: number; state: number; status_ms: number };

/** The child tables of a task, by its rowid (migrations.ts). */
const CHILD_TABLES = ["history", "artifacts", "artifact_parts", "events", "push_configs", "push_outbox", "push_delivery_log"];

/**
 * Retention on SQLite: expired tasks found through the (tenant, agent,
 * state, status_ms) index, deleted with their rows in one transaction on
 * the store's own connection (the file's only writer), their records
 * dropped from memory and their state counters moved in it. Freed pages go
 * back to the file system by `incremental_vacuum` when the database was
 * created with auto_vacuum INCREMENTAL (connection.ts); an older file
 * reuses them for new rows instead.
 */
export class SqliteRetention implements TaskRetention {
  private readonly counts: TaskCounts;
  private readonly byState: Database.Statement<[string, string, number, number, number], { id: string; status_ms: number }>;
  private readonly row: Database.Statement<[string, string, string], Row>;
  private readonly owes: Database.Statement<[number], { x: number }>;
  private readonly children: Array<Database.Statement<[number]>>;
  private readonly ledger: Array<Database.Statement<[string, string, string]>>;
  private readonly task: Database.Statement<[number]>;
  private readonly scopesStmt: Database.Statement<[], { tenant: string; agent: string }>;
  private readonly oldestStmt: Database.Statement<[string, string], { ms: number | null }>;
  private readonly deleteTx: Database.Transaction<(scope: StoreScope, cutoffs: RetentionCutoffs, ids: readonly string[]) => string[]>;

  constructor(
    private readonly db: Database.Database,
    private readonly host: RetentionHost,
  ) {
    this.counts = new TaskCounts(db);
    this.byState = db.prepare(`SELECT id, status_ms FROM tasks WHERE tenant = ? AND agent = ? AND state = ? AND status_ms < ? ORDER BY status_ms LIMIT ?`);
    this.row = db.prepare(`SELECT pk, state, status_ms FROM tasks WHERE tenant = ? AND agent = ? AND id = ?`);
    // INDEXED BY: without statistics the planner would rather scan the task's scope by primary key, or every live outbox row.
    this.owes = db.prepare(`SELECT 1 AS x FROM push_outbox INDEXED BY push_outbox_order WHERE task_pk = ? AND dead = 0 LIMIT 1`);
    this.children = CHILD_TABLES.map((t) => db.prepare(`DELETE FROM ${t} WHERE task_pk = ?`));
    this.ledger = ["sent_messages", "idempotency_keys"].map((t) => db.prepare(`DELETE FROM ${t} INDEXED BY ${t}_by_task WHERE tenant = ? AND agent = ? AND task_id = ?`));
    this.task = db.prepare(`DELETE FROM tasks WHERE pk = ?`);
    this.scopesStmt = db.prepare(`SELECT tenant, agent FROM task_counts GROUP BY tenant, agent HAVING SUM(n) > 0`);
    this.oldestStmt = db.prepare(`SELECT MIN(status_ms) AS ms FROM tasks WHERE tenant = ? AND agent = ?`);
    this.deleteTx = db.transaction((scope, cutoffs, ids) => this.deleteNow(scope, cutoffs, ids));
  }

  scopes(): StoreScope[] {
    return this.scopesStmt.all().map((r) => ({ tenant: r.tenant, agentId: r.agent }));
  }

  expired(scope: StoreScope, cutoffs: RetentionCutoffs, limit: number): string[] {
    const found: Array<{ id: string; status_ms: number }> = [];
    for (const [states, before] of kinds(cutoffs)) {
      for (const state of states) found.push(...this.byState.all(scope.tenant, scope.agentId, state, before, limit));
    }
    return found
      .sort((a, b) => a.status_ms - b.status_ms)
      .slice(0, limit)
      .map((r) => r.id);
  }

  delete(scope: StoreScope, cutoffs: RetentionCutoffs, ids: readonly string[]): string[] {
    // Never inside a unit of work: its records hold what the table does not have yet.
    if (ids.length === 0 || this.db.inTransaction || this.host.busy()) return [];
    try {
      return this.deleteTx.immediate(scope, cutoffs, ids);
    } catch (e) {
      this.counts.forget();
      throw e;
    }
  }

  private deleteNow(scope: StoreScope, cutoffs: RetentionCutoffs, ids: readonly string[]): string[] {
    const gone: string[] = [];
    for (const id of ids) {
      const r = this.row.get(scope.tenant, scope.agentId, id);
      if (!r || !isExpired(r, cutoffs) || this.owes.get(r.pk)) continue;
      for (const s of this.children) s.run(r.pk);
      for (const s of this.ledger) s.run(scope.tenant, scope.agentId, id);
      this.task.run(r.pk);
      this.counts.removed(scope.tenant, scope.agentId, r.state as TaskState);
      gone.push(id);
    }
    this.counts.write();
    // Committed with the transaction that this returns into; a rollback throws past here.
    for (const id of gone) this.host.dropped(scope, id);
    return gone;
  }

  oldest(): Array<{ tenant: string; statusMs: number }> {
    const byTenant = new Map<string, number>();
    for (const s of this.scopes()) {
      const ms = this.oldestStmt.get(s.tenant, s.agentId)?.ms;
      if (ms === null || ms === undefined) continue;
      byTenant.set(s.tenant, Math.min(ms, byTenant.get(s.tenant) ?? ms));
    }
    return [...byTenant].map(([tenant, statusMs]) => ({ tenant, statusMs }));
  }

  size(): StoragePart[] {
    const pageSize = this.db.pragma("page_size", { simple: true }) as number;
    const free = (this.db.pragma("freelist_count", { simple: true }) as number) * pageSize;
    if (this.host.filename === "" || this.host.filename === ":memory:") return [{ part: "free", bytes: free }];
    return [
      { part: "file", bytes: fileSize(this.host.filename) },
      { part: "wal", bytes: fileSize(`${this.host.filename}-wal`) },
      { part: "free", bytes: free },
    ];
  }

  reclaim(pages: number): number {
    if ((this.db.pragma("auto_vacuum", { simple: true }) as number) !== 2) return 0;
    // Never inside a unit of work: the pages go back at its commit, which must stay short.
    if (this.db.inTransaction) return -1;
    const before = this.db.pragma("freelist_count", { simple: true }) as number;
    if (before === 0) return 0;
    this.db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
    return before - (this.db.pragma("freelist_count", { simple: true }) as number);
  }
}

/** The states each cutoff applies to, for the kinds the cutoffs name. */
export function kinds(cutoffs: RetentionCutoffs): Array<[readonly TaskState[], number]> {
  const out: Array<[readonly TaskState[], number]> = [];
  if (cutoffs.terminalBeforeMs !== undefined) out.push([TERMINAL_STATES, cutoffs.terminalBeforeMs]);
  if (cutoffs.interruptedBeforeMs !== undefined) out.push([INTERRUPTED_STATES, cutoffs.interruptedBeforeMs]);
  return out;
}

function isExpired(r: Row, cutoffs: RetentionCutoffs): boolean {
  return kinds(cutoffs).some(([states, before]) => states.includes(r.state as TaskState) && r.status_ms < before);
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
