/** The PostgreSQL store: the TaskStore on a pool, its schema, and migrations under an advisory lock. */
export { MIGRATIONS } from "./migrations.js";
export { MIGRATION_LOCK_KEY, migrate, type MigrationOutcome } from "./migrate.js";
export { checkPostgresUrl, createPool, type PostgresStoreOptions } from "./pool.js";
export { openPostgres, type PostgresDatabase } from "./connection.js";
export { PostgresTaskStore } from "./postgres-task-store.js";
export type { PostgresTaskStoreOptions } from "./store-options.js";
export { StoreFenceError } from "./driver-errors.js";
