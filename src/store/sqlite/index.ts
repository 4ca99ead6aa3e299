/** The default store: SQLite through better-sqlite3. */
export { SqliteTaskStore } from "./sqlite-task-store.js";
export type { SqliteStoreOptions } from "./store-options.js";
export { WalCheckpointer } from "./wal-checkpointer.js";
export { MIGRATIONS } from "./migrations.js";
export { SETTLED_RECORDS } from "./task-records.js";
export { DATABASE_FILE, DataDirLockedError, lockDataDir, LOCK_FILE, type DataDirLock, type LockHolder } from "./data-dir-lock.js";
