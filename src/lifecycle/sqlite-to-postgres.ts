import { existsSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { DATABASE_FILE, lockDataDir, openPostgres } from "../store/index.js";
import { readPostgresDumps } from "./postgres-dumps.js";
import { keyOf, MigrateError, PostgresTarget } from "./postgres-target.js";
import { SqliteSource } from "./sqlite-source.js";
import { taskDigest, type TaskDump } from "./task-dump.js";

/** What to move where. */
export interface MigrateOptions {
  /** The hub's SQLite data directory (no hub may be serving from it). */
  readonly from: string;
  /** postgres://… of the target database. */
  readonly to: string;
  /** Add to a target that already holds tasks (a task already there is kept as it is). */
  readonly merge?: boolean;
  /** Tasks per transaction (default 500). */
  readonly batch?: number;
  /** Told after each batch committed (progress; a test interrupts here). */
  readonly onBatch?: (copied: number) => void | Promise<void>;
}

/** Logical rows: events, messages and parts one each (SQLite packs several in a row). */
export type RowCounts = Record<"tasks" | "history" | "artifacts" | "parts" | "events" | "pushConfigs" | "outbox" | "deliveryLog", number>;

/** What a migration did and found. */
export interface MigrateReport {
  /** Whether this run resumed an interrupted one. */
  readonly resumed: boolean;
  /** Tasks copied by this run. */
  readonly copied: number;
  /** Tasks the target held already (`merge`), left as they were: tenant/agent/id. */
  readonly kept: readonly string[];
  /** Send-ledger entries in the source. */
  readonly ledger: number;
  /** The source's rows and the same tasks' rows in the target, which must agree. */
  readonly source: RowCounts;
  readonly target: RowCounts;
  /** Tasks whose checksum matched. */
  readonly verified: number;
}

const zero = (): RowCounts => ({ tasks: 0, history: 0, artifacts: 0, parts: 0, events: 0, pushConfigs: 0, outbox: 0, deliveryLog: 0 });

function countInto(c: RowCounts, t: TaskDump): void {
  c.tasks++;
  c.history += t.history.length;
  c.artifacts += t.artifacts.length;
  c.parts += t.artifacts.reduce((n, a) => n + a.parts.length, 0);
  c.events += t.events.length;
  c.pushConfigs += t.pushConfigs.length;
  c.outbox += t.outbox.length;
  c.deliveryLog += t.deliveryLog.length;
}

/**
 * Copies a SQLite hub into PostgreSQL: every tenant's tasks with their
 * history, artifacts, event logs (same sequence numbers, so Last-Event-ID
 * resumes still work), push configs, outbox (pending deliveries stay
 * pending and are delivered by the fleet) and delivery records, then the
 * send ledger; then checks every task's checksum and the row counts.
 *
 * The data directory is locked as a hub locks it, so nothing writes it
 * meanwhile. Each batch commits with the progress it made (table
 * `sqlite_imports` in the target), so a run that was interrupted resumes
 * after the last batch that committed; run it again with the same
 * arguments. A target that holds other data is refused unless `merge`.
 */
export async function migrateToPostgres(options: MigrateOptions): Promise<MigrateReport> {
  const file = join(resolve(options.from), DATABASE_FILE);
  if (!existsSync(file)) throw new MigrateError(`${options.from} holds no a2a-hub database (${file} is missing)`);
  const lock = lockDataDir(options.from);
  const source = new SqliteSource(file);
  const db = await openPostgres({ url: options.to, poolSize: 4, applicationName: "a2a-hub migrate" }).catch((e: Error) => {
    source.close();
    lock.release();
    throw new MigrateError(`cannot open the target: ${e.message}`, { cause: e });
  });
  try {
    const target = new PostgresTarget(db.pool);
    const id = realpathSync(file);
    const progress = await target.begin(id, options.merge === true);
    const batch = options.batch ?? 500;
    let copied = 0;
    const kept: string[] = [];
    for (let after = progress.lastPk; ; ) {
      const tasks = source.batch(after, batch);
      if (tasks.length === 0) break;
      const r = await target.write(id, tasks, progress.touchOffset);
      copied += r.copied;
      kept.push(...r.skipped);
      after = tasks[tasks.length - 1]!.pk;
      await options.onBatch?.(copied);
    }
    let ledger = 0;
    for (const entries of source.ledger(1_000)) {
      ledger += entries.length;
      if (!progress.ledgerDone) await target.writeLedger(entries);
    }
    await target.ledgerDone(id);
    await target.finish(id);
    const check = await verify(source, db.pool, progress.touchOffset, batch, options.merge === true);
    return { resumed: progress.resumed, copied, kept, ledger, ...check };
  } finally {
    source.close();
    await db.pool.end();
    lock.release();
  }
}

/** Every source task against the target's: checksums, and the logical row counts of both. */
async function verify(source: SqliteSource, pool: Parameters<typeof readPostgresDumps>[0], touchOffset: number, batch: number, merge: boolean): Promise<Pick<MigrateReport, "source" | "target" | "verified">> {
  const counts = { source: zero(), target: zero() };
  const wrong: string[] = [];
  let verified = 0;
  for (let after = 0; ; ) {
    const tasks = source.batch(after, batch);
    if (tasks.length === 0) break;
    after = tasks[tasks.length - 1]!.pk;
    const there = await readPostgresDumps(pool, tasks.map((t) => t.task), touchOffset);
    for (const { task } of tasks) {
      const copy = there.get(keyOf(task.tenant, task.agent, task.id));
      countInto(counts.source, task);
      if (copy) countInto(counts.target, copy);
      if (copy && taskDigest(copy) === taskDigest(task)) verified++;
      // Merging, a task the target already held is kept as it was: not this run's to judge.
      else if (!merge || !copy) wrong.push(`${task.tenant}/${task.agent}/${task.id}${copy ? " (checksum differs)" : " (missing)"}`);
    }
  }
  if (wrong.length > 0) throw new MigrateError(`${wrong.length} tasks differ in the target from the source, e.g. ${wrong.slice(0, 5).join(", ")}`);
  return { ...counts, verified };
}
