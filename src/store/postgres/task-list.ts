import type { StoreScope, TaskPage, TaskQuery } from "../task-store.js";
import { historyLimit, taskColumns, taskOf, type LoadedRow } from "./task-loader.js";

/** A parameterised statement. */
export interface Statement {
  readonly text: string;
  readonly values: unknown[];
}

/**
 * ListTasks (§3.1.4) as one statement: newest status first, keyset
 * pagination on (status_ms, touch), and the total beside the page, read in
 * the same snapshot so the two agree. The statement is built per shape of
 * filter; every value is a parameter.
 */
export function listStatement(scope: StoreScope, q: TaskQuery): Statement {
  const values: unknown[] = [scope.tenant, scope.agentId];
  const param = (v: unknown): string => {
    values.push(v);
    return `$${values.length}`;
  };
  const where = ["t.tenant = $1", "t.agent = $2"];
  const counted = ["tenant = $1", "agent = $2"];
  const context = q.contextId !== undefined ? param(q.contextId) : undefined;
  if (context) where.push(`t.context_id = ${context}`);
  if (q.state !== undefined) {
    const p = param(q.state);
    where.push(`t.state = ${p}`);
    counted.push(`state = ${p}`);
  }
  if (q.statusAfterMs !== undefined) where.push(`t.status_ms > ${param(q.statusAfterMs)}::bigint`);
  const filter = where.join(" AND ");
  const total = totalOf(q, filter, counted, context);
  let cursor = "";
  if (q.after) {
    // A row comparison: the index's own order, so a deep page starts where the cursor points instead of filtering from the top.
    cursor = ` AND (t.status_ms, t.touch) < (${param(q.after.statusMs)}::bigint, ${param(q.after.touch)}::bigint)`;
  }
  const history = param(historyLimit(q));
  const limit = param(q.limit + 1);
  // The page LEFT JOINed to one row, so that an empty page still carries the total.
  const text = `WITH page AS (
      SELECT ${taskColumns("t", history, q.includeArtifacts !== false)} FROM tasks t
      WHERE ${filter}${cursor} ORDER BY t.status_ms DESC, t.touch DESC LIMIT ${limit}::integer)
    SELECT (${total}) AS total, page.* FROM (SELECT 1) one LEFT JOIN page ON true ORDER BY page.status_ms DESC, page.touch DESC`;
  return { text, values };
}

/**
 * The statement of the listing's total. The trigger-kept counters answer
 * in O(states) for the scope or a state, and in O(1) for a context
 * (schema 6); a context and a state together, or a time filter, are
 * counted row by row.
 */
function totalOf(q: TaskQuery, filter: string, counted: readonly string[], context: string | undefined): string {
  if (q.statusAfterMs !== undefined || (context && q.state !== undefined)) return `SELECT COUNT(*) FROM tasks t WHERE ${filter}`;
  if (context) return `SELECT COALESCE((SELECT n FROM task_context_counts WHERE tenant = $1 AND agent = $2 AND context_id = ${context}), 0)::bigint`;
  return `SELECT COALESCE(SUM(n), 0)::bigint FROM task_counts WHERE ${counted.join(" AND ")}`;
}

/** The page from the rows of `listStatement`. */
export function pageOf(rows: Array<LoadedRow & { total: number }>, q: TaskQuery): TaskPage {
  const total = rows[0]?.total ?? 0;
  const found = rows.filter((r) => r.pk !== null);
  const more = found.length > q.limit;
  if (more) found.length = q.limit;
  const last = found[found.length - 1];
  return {
    tasks: found.map(taskOf),
    next: more && last ? { statusMs: last.status_ms, touch: last.touch } : undefined,
    total,
  };
}
