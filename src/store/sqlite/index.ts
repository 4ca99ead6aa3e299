/** The default store: SQLite through better-sqlite3. */
export { SqliteTaskStore, type SqliteStoreOptions } from "./sqlite-task-store.js";
export { MIGRATIONS } from "./migrations.js";
export { SETTLED_RECORDS } from "./task-records.js";
export { DATABASE_FILE, DataDirLockedError, lockDataDir, LOCK_FILE, type DataDirLock, type LockHolder } from "./data-dir-lock.js";
