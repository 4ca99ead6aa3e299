import type pg from "pg";
import { MIGRATIONS } from "./migrations.js";

/**
 * The advisory lock every replica takes before looking at the schema
 * version: replicas starting together queue on it, the first migrates, the
 * others find the schema current. ("a2a-hub" in ASCII, so that other users
 * of advisory locks in the same database can tell it apart.)
 */
export const MIGRATION_LOCK_KEY = "27358465695970658";

/** What one run of the migrations found and did. */
export interface MigrationOutcome {
  /** Schema version found. */
  readonly from: number;
  /** Schema version left (the newest this a2a-hub knows). */
  readonly to: number;
}

/**
 * Brings the schema up to date, each migration in its own transaction with
 * its version row, under a session advisory lock (released by the server
 * if this process dies holding it). The version table is created under the
 * lock too: two concurrent CREATE TABLE IF NOT EXISTS can still collide.
 */
export async function migrate(pool: pg.Pool, migrations: readonly string[] = MIGRATIONS): Promise<MigrationOutcome> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("SELECT pg_advisory_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version integer PRIMARY KEY,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const found = await client.query<{ v: number }>("SELECT COALESCE(MAX(version), 0)::integer AS v FROM schema_migrations");
      const from = found.rows[0]!.v;
      if (from > migrations.length) {
        throw new Error(
          `database schema version ${from} is newer than this a2a-hub knows (${migrations.length}); refusing to open it`,
        );
      }
      for (let v = from; v < migrations.length; v++) {
        await client.query("BEGIN");
        try {
          await client.query(migrations[v]!);
          await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [v + 1]);
          await client.query("COMMIT");
        } catch (e) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw new Error(`schema migration ${v + 1} failed: ${(e as Error).message}`, { cause: e });
        }
      }
      return { from, to: migrations.length };
    } finally {
      await client.query("SELECT pg_advisory_unlock($1::bigint)", [MIGRATION_LOCK_KEY]).catch((e: Error) => {
        broken = e;
      });
    }
  } catch (e) {
    broken ??= e as Error;
    throw e;
  } finally {
    // A connection that failed mid-way may still hold the lock: destroyed, not pooled.
    client.release(broken);
  }
}
