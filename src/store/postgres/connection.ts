import type pg from "pg";
import { migrate, type MigrationOutcome } from "./migrate.js";
import { createPool, type PostgresStoreOptions } from "./pool.js";

/** An open PostgreSQL store database: its pool, and what the start-up migration did. */
export interface PostgresDatabase {
  readonly pool: pg.Pool;
  readonly schema: MigrationOutcome;
}

/** Opens the pool and brings the schema up to date; a database that cannot be migrated is closed again. */
export async function openPostgres(options: PostgresStoreOptions): Promise<PostgresDatabase> {
  const pool = createPool(options);
  try {
    return { pool, schema: await migrate(pool) };
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw e;
  }
}
