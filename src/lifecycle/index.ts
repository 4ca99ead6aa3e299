/**
 * The life of a hub's data beyond serving it: online backup of a SQLite
 * data directory and its restore (PostgreSQL has pg_dump / pg_basebackup),
 * retention sweeps, and moving a SQLite hub to PostgreSQL.
 */
export { BackupError, backupDataDir, verifyDatabase, type BackupReport } from "./sqlite-backup.js";
export { restoreDataDir, type RestoreOptions } from "./sqlite-restore.js";
export { cutoffsFor, retentionConfigured, ruleFor, type RetentionPolicy, type RetentionRule } from "./retention-policy.js";
export { RetentionSweep, type RetentionSweepOptions } from "./retention-sweep.js";
export { migrateToPostgres, type MigrateOptions, type MigrateReport, type RowCounts } from "./sqlite-to-postgres.js";
export { MigrateError } from "./postgres-target.js";
