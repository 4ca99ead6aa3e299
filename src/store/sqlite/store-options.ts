import type { ConnectionOptions } from "./connection.js";

/** Options of the SQLite store. */
export interface SqliteStoreOptions extends ConnectionOptions {
  /** Messages kept in a task's history; older ones are dropped as new ones arrive. Default: all. */
  readonly maxHistoryMessages?: number;
}
