import type Database from "better-sqlite3";
import type { Task } from "../../../gen/a2a/v1/a2a_pb.js";
import type { StoreScope, TaskPage, TaskQuery, TaskView } from "../task-store.js";
import { expectRow } from "../encoding/index.js";
import { TASK_COLUMNS, type TaskRow } from "./task-rows.js";

/** The named parameters of a ListTasks query; only those its filters use are bound. */
interface ListParams {
  tenant: string;
  agent: string;
  contextId?: string;
  state?: number;
  statusAfterMs?: number;
  afterMs?: number;
  afterTouch?: number;
  limit?: number;
}

interface ListStatements {
  readonly page: Database.Statement<[ListParams], TaskRow>;
  readonly count: Database.Statement<[ListParams], { n: number }>;
}

/** How ListTasks reads: rows into tasks, inside one read transaction. */
export interface ListSources {
  readonly load: (row: TaskRow, view: TaskView) => Task;
  /** Runs the page and the count in one read transaction, so they agree, with every task row written first. */
  readonly read: <T>(body: () => T) => T;
}

/**
 * ListTasks (§3.1.4) over the `tasks` table: newest status first, keyset
 * pagination on (status_ms, touch) so a deep page costs what the first
 * does. One pair of statements per shape of filter, prepared on first use.
 */
export class TaskList {
  private readonly byShape = new Map<string, ListStatements>();

  constructor(
    private readonly db: Database.Database,
    private readonly sources: ListSources,
  ) {}

  private statements(q: TaskQuery): ListStatements {
    const key = [q.contextId !== undefined, q.state !== undefined, q.statusAfterMs !== undefined, q.after !== undefined].join();
    let stmts = this.byShape.get(key);
    if (!stmts) {
      const where = ["tenant = @tenant", "agent = @agent"];
      if (q.contextId !== undefined) where.push("context_id = @contextId");
      if (q.state !== undefined) where.push("state = @state");
      if (q.statusAfterMs !== undefined) where.push("status_ms > @statusAfterMs");
      const filter = where.join(" AND ");
      const cursor = q.after !== undefined ? " AND (status_ms < @afterMs OR (status_ms = @afterMs AND touch < @afterTouch))" : "";
      stmts = {
        page: this.db.prepare(
          `SELECT ${TASK_COLUMNS} FROM tasks
           WHERE ${filter}${cursor} ORDER BY status_ms DESC, touch DESC LIMIT @limit`,
        ),
        // Without a context or time filter the state counters (task-counts.ts) answer in O(states).
        count:
          q.contextId === undefined && q.statusAfterMs === undefined
            ? this.db.prepare(`SELECT COALESCE(SUM(n), 0) AS n FROM task_counts WHERE ${filter}`)
            : this.db.prepare(`SELECT COUNT(*) AS n FROM tasks WHERE ${filter}`),
      };
      this.byShape.set(key, stmts);
    }
    return stmts;
  }

  list(scope: StoreScope, q: TaskQuery): TaskPage {
    const { page, count } = this.statements(q);
    const filters: ListParams = { tenant: scope.tenant, agent: scope.agentId };
    if (q.contextId !== undefined) filters.contextId = q.contextId;
    if (q.state !== undefined) filters.state = q.state;
    if (q.statusAfterMs !== undefined) filters.statusAfterMs = q.statusAfterMs;
    return this.sources.read(() => {
      const rows = page.all({
        ...filters,
        ...(q.after ? { afterMs: q.after.statusMs, afterTouch: q.after.touch } : {}),
        limit: q.limit + 1,
      });
      const more = rows.length > q.limit;
      if (more) rows.length = q.limit;
      const last = rows[rows.length - 1];
      return {
        tasks: rows.map((r) => this.sources.load(r, q)),
        next: more && last ? { statusMs: last.status_ms, touch: last.touch } : undefined,
        total: expectRow(count.get(filters), "a count").n,
      };
    });
  }
}
