import type pg from "pg";
import { emptyChildren, ordered, type ChildRows } from "./dump-order.js";
import { keyOf } from "./postgres-target.js";
import type { TaskDump } from "./task-dump.js";

const TASKS = `SELECT t.pk, t.tenant, t.agent, t.id, t.context_id, t.state, t.status, t.status_ms, t.touch, t.metadata, t.last_seq, t.history_count, t.artifact_count, t.created_ms
  FROM tasks t JOIN unnest($1::text[], $2::text[], $3::text[]) AS k(tenant, agent, id) ON t.tenant = k.tenant AND t.agent = k.agent AND t.id = k.id`;
const CHILDREN = {
  history: `SELECT task_pk, idx, message FROM history WHERE task_pk = ANY ($1::bigint[])`,
  artifacts: `SELECT task_pk, artifact_id, ord, head, sealed FROM artifacts WHERE task_pk = ANY ($1::bigint[])`,
  parts: `SELECT task_pk, artifact_id, idx, part FROM artifact_parts WHERE task_pk = ANY ($1::bigint[])`,
  events: `SELECT task_pk, seq, event FROM events WHERE task_pk = ANY ($1::bigint[])`,
  pushConfigs: `SELECT task_pk, id, config, created_ms, version FROM push_configs WHERE task_pk = ANY ($1::bigint[])`,
  outbox: `SELECT id, task_pk, config_id, seq, kind, attempts, next_at_ms, dead, last_error FROM push_outbox WHERE task_pk = ANY ($1::bigint[])`,
  deliveryLog: `SELECT task_pk, config_id, delivered, last_attempt_ms, last_error FROM push_delivery_log WHERE task_pk = ANY ($1::bigint[])`,
};

/**
 * Tasks as the PostgreSQL store holds them, read back as dumps by (tenant,
 * agent, id): what a migration's check compares with its source.
 */
export async function readPostgresDumps(pool: pg.Pool, keys: ReadonlyArray<{ tenant: string; agent: string; id: string }>, touchOffset: number): Promise<Map<string, TaskDump>> {
  const tasks = (await pool.query(TASKS, [keys.map((k) => k.tenant), keys.map((k) => k.agent), keys.map((k) => k.id)])).rows;
  const kids = new Map<number, ChildRows>(tasks.map((r) => [Number(r.pk), emptyChildren()]));
  const pks = [...kids.keys()];
  const rows = async (what: keyof typeof CHILDREN): Promise<any[]> => (await pool.query(CHILDREN[what], [pks])).rows;
  const of = (pk: unknown): ChildRows => kids.get(Number(pk))!;
  for (const r of await rows("history")) of(r.task_pk).history.push({ idx: r.idx, message: r.message });
  for (const r of await rows("artifacts")) of(r.task_pk).artifacts.set(r.artifact_id, { ord: r.ord, head: r.head, sealed: r.sealed, parts: [] });
  for (const r of await rows("parts")) of(r.task_pk).artifacts.get(r.artifact_id)?.parts.push({ idx: r.idx, part: r.part });
  for (const r of await rows("events")) of(r.task_pk).events.push({ seq: r.seq, event: r.event });
  for (const r of await rows("pushConfigs")) of(r.task_pk).pushConfigs.push({ id: r.id, config: r.config, createdMs: Number(r.created_ms), version: r.version });
  for (const r of await rows("outbox")) {
    of(r.task_pk).outbox.push({ rowId: Number(r.id), configId: r.config_id, seq: r.seq, kind: r.kind, attempts: r.attempts, nextAtMs: Number(r.next_at_ms), dead: r.dead, lastError: r.last_error });
  }
  for (const r of await rows("deliveryLog")) {
    of(r.task_pk).deliveryLog.push({ configId: r.config_id, delivered: Number(r.delivered), lastAttemptMs: r.last_attempt_ms === null ? null : Number(r.last_attempt_ms), lastError: r.last_error });
  }
  return new Map(
    tasks.map((r) => [
      keyOf(r.tenant, r.agent, r.id),
      ordered(
        {
          tenant: r.tenant, agent: r.agent, id: r.id, contextId: r.context_id, state: r.state, status: r.status, statusMs: Number(r.status_ms), touch: Number(r.touch) - touchOffset,
          metadata: r.metadata, lastSeq: r.last_seq, historyCount: r.history_count, artifactCount: r.artifact_count, createdMs: Number(r.created_ms),
        },
        of(r.pk),
      ),
    ]),
  );
}
