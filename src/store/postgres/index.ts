/** The PostgreSQL store's foundations: schema, migrations under an advisory lock, and the connection pool. */
export { MIGRATIONS } from "./migrations.js";
export { MIGRATION_LOCK_KEY, migrate, type MigrationOutcome } from "./migrate.js";
export { checkPostgresUrl, createPool, type PostgresStoreOptions } from "./pool.js";
export { openPostgres, type PostgresDatabase } from "./connection.js";
