import { INTERRUPTED_STATES, TERMINAL_STATES } from "../../protocol/index.js";
import type { StoreScope } from "../task-store.js";
import type { RetentionCutoffs, StoragePart, TaskRetention } from "../task-retention.js";
import type { TaskCache } from "./task-cache.js";

/** Runs one statement (the store's, which maps a lost database to StoreUnavailableError). */
type Query = <R>(what: string, text: string, values: unknown[]) => Promise<R[]>;

const SCOPES = `SELECT tenant, agent FROM task_counts GROUP BY tenant, agent HAVING SUM(n) > 0`;
const EXPIRED = `SELECT id FROM tasks WHERE tenant = $1 AND agent = $2
  AND ((state = ANY ($3::integer[]) AND status_ms < $4::bigint) OR (state = ANY ($5::integer[]) AND status_ms < $6::bigint))
  ORDER BY status_ms LIMIT $7::integer`;
const DELETE = `SELECT id FROM a2a_delete_expired($1, $2, $3::text[], $4::integer[], $5::bigint, $6::integer[], $7::bigint) AS id`;
// Per scope through the (tenant, agent, status_ms) index, then per tenant: no scan of the whole table.
const OLDEST = `SELECT s.tenant, MIN((SELECT MIN(t.status_ms) FROM tasks t WHERE t.tenant = s.tenant AND t.agent = s.agent)) AS ms
  FROM (${SCOPES}) s GROUP BY s.tenant`;
const TABLES = ["tasks", "history", "artifacts", "artifact_parts", "events", "push_configs", "push_outbox", "push_delivery_log", "sent_messages", "idempotency_keys", "task_counts", "task_context_counts"];
const SIZES = `SELECT c.relname AS part, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
  WHERE c.relkind = 'r' AND c.relname = ANY ($1::text[]) AND c.relnamespace = current_schema()::regnamespace ORDER BY c.relname`;

/**
 * Retention on PostgreSQL: expired tasks found with one query per scope and
 * deleted by `a2a_delete_expired` (migration-3-retention.ts), one replica at a time.
 * Space freed by deletes is reused by PostgreSQL's autovacuum; the size
 * metric shows each table with its indexes and TOAST.
 */
export class PostgresRetention implements TaskRetention {
  constructor(
    private readonly query: Query,
    private readonly cache: TaskCache,
  ) {}

  async scopes(): Promise<StoreScope[]> {
    const rows = await this.query<{ tenant: string; agent: string }>("retention scopes", SCOPES, []);
    return rows.map((r) => ({ tenant: r.tenant, agentId: r.agent }));
  }

  async expired(scope: StoreScope, cutoffs: RetentionCutoffs, limit: number): Promise<string[]> {
    const rows = await this.query<{ id: string }>("expired tasks", EXPIRED, [scope.tenant, scope.agentId, ...this.cutoffValues(cutoffs), limit]);
    return rows.map((r) => r.id);
  }

  async delete(scope: StoreScope, cutoffs: RetentionCutoffs, ids: readonly string[]): Promise<string[]> {
    // A task a unit of this replica is writing now stays: its unit would be refused whole.
    const free = ids.filter((id) => !this.cache.pinned(scope, id));
    if (free.length === 0) return [];
    const values = [scope.tenant, scope.agentId, free, ...this.cutoffValues(cutoffs)];
    const gone = (await this.query<{ id: string }>("deleting expired tasks", DELETE, values)).map((r) => r.id);
    for (const id of gone) this.cache.dropped(scope, id);
    return gone;
  }

  private cutoffValues(cutoffs: RetentionCutoffs): unknown[] {
    return [TERMINAL_STATES, cutoffs.terminalBeforeMs ?? null, INTERRUPTED_STATES, cutoffs.interruptedBeforeMs ?? null];
  }

  async oldest(): Promise<Array<{ tenant: string; statusMs: number }>> {
    const rows = await this.query<{ tenant: string; ms: number | null }>("the oldest tasks", OLDEST, []);
    return rows.filter((r) => r.ms !== null).map((r) => ({ tenant: r.tenant, statusMs: Number(r.ms) }));
  }

  async size(): Promise<StoragePart[]> {
    const rows = await this.query<{ part: string; bytes: number }>("table sizes", SIZES, [TABLES]);
    return rows.map((r) => ({ part: r.part, bytes: Number(r.bytes) }));
  }

  /** PostgreSQL's autovacuum makes deleted rows' space reusable; nothing to do here. */
  reclaim(): number {
    return 0;
  }
}
