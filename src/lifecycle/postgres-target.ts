import type pg from "pg";
import type { LedgerDump, TaskDump } from "./task-dump.js";

/** A migration that cannot go on, said so that the operator knows what to do. */
export class MigrateError extends Error {
  override readonly name = "MigrateError";
}

/** Where a migration from one source stands in the target (`sqlite_imports`, one row per source). */
export interface ImportProgress {
  /** Source rowids up to this one are copied. */
  readonly lastPk: number;
  /** Added to every source touch: the source's tasks order after the target's own in ListTasks. */
  readonly touchOffset: number;
  readonly ledgerDone: boolean;
  /** Whether this run picks up an earlier one. */
  readonly resumed: boolean;
}

const PROGRESS_TABLE = `CREATE TABLE IF NOT EXISTS sqlite_imports (
  source text PRIMARY KEY,
  last_pk bigint NOT NULL,
  touch_offset bigint NOT NULL,
  ledger_done boolean NOT NULL DEFAULT false,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
)`;

const INSERT_TASKS = `INSERT INTO tasks (tenant, agent, id, context_id, state, status, status_ms, touch, metadata, last_seq, history_count, artifact_count, created_ms)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::bytea[], $7::bigint[], $8::bigint[], $9::text[], $10::integer[], $11::integer[], $12::integer[], $13::bigint[])
  ON CONFLICT (tenant, agent, id) DO NOTHING
  RETURNING pk, tenant, agent, id`;

/** Child tables: their columns and unnest types, in the order `childValues` gives them. */
const CHILD_INSERTS = {
  history: `INSERT INTO history (task_pk, idx, message) SELECT * FROM unnest($1::bigint[], $2::integer[], $3::bytea[])`,
  artifacts: `INSERT INTO artifacts (task_pk, artifact_id, ord, head, part_count, sealed) SELECT * FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::bytea[], $5::integer[], $6::boolean[])`,
  parts: `INSERT INTO artifact_parts (task_pk, artifact_id, idx, part) SELECT * FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::bytea[])`,
  events: `INSERT INTO events (task_pk, seq, event) SELECT * FROM unnest($1::bigint[], $2::integer[], $3::bytea[])`,
  pushConfigs: `INSERT INTO push_configs (task_pk, id, config, created_ms, version) SELECT * FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::bigint[], $5::text[])`,
  // WITH ORDINALITY keeps the source's order, which is the delivery order per config, in the new ids.
  outbox: `INSERT INTO push_outbox (task_pk, config_id, seq, kind, attempts, next_at_ms, dead, last_error)
    SELECT t, c, s, k, a, n, d, e FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::smallint[], $5::integer[], $6::bigint[], $7::boolean[], $8::text[]) WITH ORDINALITY AS u(t, c, s, k, a, n, d, e, o) ORDER BY o`,
  deliveryLog: `INSERT INTO push_delivery_log (task_pk, config_id, delivered, last_attempt_ms, last_error) SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::text[])`,
} as const;

const LEDGER_INSERTS = {
  messageId: `INSERT INTO sent_messages (tenant, agent, message_id, fingerprint, task_id, reply, created_ms)
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[], $5::text[], $6::bytea[], $7::bigint[]) ON CONFLICT DO NOTHING`,
  idempotencyKey: `INSERT INTO idempotency_keys (tenant, agent, idem_key, fingerprint, task_id, reply, created_ms)
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[], $5::text[], $6::bytea[], $7::bigint[]) ON CONFLICT DO NOTHING`,
};

/** Columns of `rows`, one array each: what unnest takes. */
function columns<T>(rows: readonly T[], pick: (r: T) => unknown[]): unknown[][] {
  const out: unknown[][] = [];
  for (const r of rows) pick(r).forEach((v, i) => (out[i] ??= []).push(v));
  return out;
}

/**
 * The PostgreSQL side of a migration: a batch of tasks with their children
 * in one transaction with the progress it makes, so an interrupted run
 * resumes exactly after the last batch that committed. Task rows get new
 * row keys from the target; a task already there (same tenant, agent and
 * id, when merging) is skipped with its children.
 */
export class PostgresTarget {
  constructor(private readonly pool: pg.Pool) {}

  /** Finds or starts this source's progress; refuses a target holding other data unless `merge`. */
  async begin(source: string, merge: boolean): Promise<ImportProgress> {
    await this.pool.query(PROGRESS_TABLE);
    const found = await this.pool.query<{ last_pk: number; touch_offset: number; ledger_done: boolean }>(`SELECT last_pk, touch_offset, ledger_done FROM sqlite_imports WHERE source = $1`, [source]);
    const row = found.rows[0];
    if (row) return { lastPk: Number(row.last_pk), touchOffset: Number(row.touch_offset), ledgerDone: row.ledger_done, resumed: true };
    const held = await this.pool.query<{ tasks: number; ledger: boolean }>(
      `SELECT (SELECT COUNT(*) FROM tasks)::integer AS tasks, EXISTS (SELECT 1 FROM sent_messages) OR EXISTS (SELECT 1 FROM idempotency_keys) AS ledger`,
    );
    const { tasks, ledger } = held.rows[0]!;
    if ((tasks > 0 || ledger) && !merge) {
      throw new MigrateError(`the target already holds data (${tasks} tasks${ledger ? " and send-ledger entries" : ""}); migrate into an empty database, or pass --merge to add this hub's tasks to it`);
    }
    const offset = await this.pool.query<{ t: number }>(`SELECT COALESCE(MAX(touch), 0) AS t FROM tasks`);
    const touchOffset = Number(offset.rows[0]!.t);
    await this.pool.query(`INSERT INTO sqlite_imports (source, last_pk, touch_offset) VALUES ($1, 0, $2)`, [source, touchOffset]);
    return { lastPk: 0, touchOffset, ledgerDone: false, resumed: false };
  }

  /** Copies a batch and records `lastPk` as done, in one transaction; returns the tasks copied and those skipped (already in the target). */
  async write(source: string, batch: ReadonlyArray<{ pk: number; task: TaskDump }>, touchOffset: number): Promise<{ copied: number; skipped: string[] }> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      const tasks = batch.map((b) => b.task);
      const inserted = await client.query<{ pk: number; tenant: string; agent: string; id: string }>(
        INSERT_TASKS,
        columns(tasks, (t) => [t.tenant, t.agent, t.id, t.contextId, t.state, t.status, t.statusMs, t.touch + touchOffset, t.metadata, t.lastSeq, t.historyCount, t.artifactCount, t.createdMs]),
      );
      const pkOf = new Map(inserted.rows.map((r) => [keyOf(r.tenant, r.agent, r.id), Number(r.pk)]));
      const copied = tasks.flatMap((t) => {
        const pk = pkOf.get(keyOf(t.tenant, t.agent, t.id));
        return pk === undefined ? [] : [{ pk, t }];
      });
      for (const [name, values] of Object.entries(childValues(copied))) {
        if ((values[0]?.length ?? 0) > 0) await client.query(CHILD_INSERTS[name as keyof typeof CHILD_INSERTS], values);
      }
      await client.query(`UPDATE sqlite_imports SET last_pk = $2 WHERE source = $1`, [source, batch[batch.length - 1]!.pk]);
      await client.query("COMMIT");
      return { copied: copied.length, skipped: tasks.filter((t) => !pkOf.has(keyOf(t.tenant, t.agent, t.id))).map((t) => `${t.tenant}/${t.agent}/${t.id}`) };
    } catch (e) {
      broken = e as Error;
      await client.query("ROLLBACK").catch(() => undefined);
      throw e;
    } finally {
      client.release(broken);
    }
  }

  /** Copies send-ledger entries; an entry already there is kept (the first record of a key wins, §3.3.1). */
  async writeLedger(entries: readonly LedgerDump[]): Promise<void> {
    for (const by of ["messageId", "idempotencyKey"] as const) {
      const rows = entries.filter((e) => e.by === by);
      if (rows.length > 0) await this.pool.query(LEDGER_INSERTS[by], columns(rows, (e) => [e.tenant, e.agent, e.key, e.fingerprint, e.taskId, e.reply, e.createdMs]));
    }
  }

  async ledgerDone(source: string): Promise<void> {
    await this.pool.query(`UPDATE sqlite_imports SET ledger_done = true WHERE source = $1`, [source]);
  }

  /** New tasks of the hubs on the target order after every copied one; the source is recorded as finished. */
  async finish(source: string): Promise<void> {
    await this.pool.query(`SELECT setval('task_touch', GREATEST((SELECT COALESCE(MAX(touch), 0) FROM tasks), (SELECT last_value FROM task_touch)))`);
    await this.pool.query(`UPDATE sqlite_imports SET finished_at = now() WHERE source = $1`, [source]);
  }
}

export function keyOf(tenant: string, agent: string, id: string): string {
  return `${tenant}\u0000${agent}\u0000${id}`;
}

/** The child rows of copied tasks, column by column, per table. */
function childValues(copied: ReadonlyArray<{ pk: number; t: TaskDump }>): Record<keyof typeof CHILD_INSERTS, unknown[][]> {
  const each = <T>(get: (t: TaskDump) => readonly T[], pick: (pk: number, r: T) => unknown[]): unknown[][] =>
    columns(
      copied.flatMap(({ pk, t }) => get(t).map((r) => [pk, r] as const)),
      ([pk, r]) => pick(pk, r),
    );
  return {
    history: each((t) => t.history, (pk, m) => [pk, m.idx, m.message]),
    artifacts: each((t) => t.artifacts, (pk, a) => [pk, a.artifactId, a.ord, a.head, a.parts.length, a.sealed]),
    parts: each((t) => t.artifacts.flatMap((a) => a.parts.map((part, idx) => ({ a: a.artifactId, idx, part }))), (pk, p) => [pk, p.a, p.idx, p.part]),
    events: each((t) => t.events, (pk, e) => [pk, e.seq, e.event]),
    pushConfigs: each((t) => t.pushConfigs, (pk, c) => [pk, c.id, c.config, c.createdMs, c.version]),
    outbox: each((t) => t.outbox, (pk, o) => [pk, o.configId, o.seq, o.kind, o.attempts, o.nextAtMs, o.dead, o.lastError]),
    deliveryLog: each((t) => t.deliveryLog, (pk, l) => [pk, l.configId, l.delivered, l.lastAttemptMs, l.lastError]),
  };
}
