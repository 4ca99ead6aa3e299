/** The store layer: the TaskStore contract and its implementations. */
export type {
  OutboxStats,
  PushDeliveryState,
  ArtifactChange,
  ListCursor,
  LoggedEvent,
  NewTask,
  PushDelivery,
  SendKey,
  SentMessage,
  StoreScope,
  TaskHead,
  TaskPage,
  TaskQuery,
  TaskStore,
  MaybePromise,
  TaskView,
} from "./task-store.js";
export type { Fleet, OrphanTask, TaskWake } from "./fleet.js";
export type { RetentionCutoffs, StoragePart, TaskRetention } from "./task-retention.js";
export { StoreUnavailableError } from "./store-unavailable.js";
/** SQLite's packed rows (several events or parts in one row), as a migration reads them. */
export { unpackRows } from "./encoding/index.js";
export { DATABASE_FILE, DataDirLockedError, lockDataDir, SqliteTaskStore, WalCheckpointer, type DataDirLock, type SqliteStoreOptions } from "./sqlite/index.js";
export {
  MIGRATIONS as POSTGRES_MIGRATIONS,
  checkPostgresUrl,
  createPool,
  migrate as migratePostgres,
  openPostgres,
  PostgresTaskStore,
  StoreFenceError,
  type PostgresTaskStoreOptions,
  type MigrationOutcome,
  type PostgresDatabase,
  type PostgresStoreOptions,
} from "./postgres/index.js";
